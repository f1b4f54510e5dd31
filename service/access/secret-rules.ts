/**
 * The permission rows of the location and part secret operations (docs/PROTOCOL.md section 10:
 * `read_location_secret` and `read_robot_secret` are owner permissions; the machinery:
 * permissions/rules.ts).
 */
import type { AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import { location, part, type Rules } from '../permissions/rules';
import { requiredId } from '../validate';

export const secretRules: Rules<typeof AppServiceService> = {
  // read_location_secret / write_location: owner on the location.
  locationAuth: { resource: (r) => location(r.locationId), need: 'owner' },
  createLocationSecret: { resource: (r) => location(r.locationId), need: 'owner' },
  deleteLocationSecret: {
    validate: (r) => {
      requiredId('location_id', r.locationId);
      requiredId('secret_id', r.secretId);
    },
    resource: (r) => location(r.locationId),
    need: 'owner',
  },
  // read_robot_secret / write_robot: owner on the part's machine.
  createRobotPartSecret: { resource: (r) => part(r.robotPartId), need: 'owner' },
  deleteRobotPartSecret: {
    validate: (r) => {
      requiredId('robot_part_id', r.robotPartId);
      requiredId('secret_id', r.secretId);
    },
    resource: (r) => part(r.robotPartId),
    need: 'owner',
  },
};
