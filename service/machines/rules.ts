/** The permission rows of the machine and part operations (docs/PROTOCOL.md section 10; the machinery: permissions/rules.ts). */
import type { AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import { location, org, part, robot, type Rules } from '../permissions/rules';
import { displayName, idList, metadataJson, requiredId } from '../validate';
import { givenConfig } from './validate';

export const machineRules: Rules<typeof AppServiceService> = {
  getRobot: { resource: (r) => robot(r.robotId), need: 'operator' },
  getRobotParts: { resource: (r) => robot(r.robotId), need: 'operator' },
  getRobotPart: { resource: (r) => part(r.robotPartId), need: 'operator' },
  getRobotPartByNameAndLocation: {
    validate: (r) => {
      displayName('name', r.name);
      requiredId('location_id', r.locationId);
    },
    // The part is found by name in the handler; the location must be seen first (NOT_FOUND), and the
    // handler then requires operator on the part's machine.
    resource: (r) => location(r.locationId),
    need: 'sees',
  },
  newRobotPart: {
    validate: (r) => {
      requiredId('robot_id', r.robotId);
      displayName('part_name', r.partName);
    },
    resource: (r) => robot(r.robotId),
    need: 'owner',
  },
  deleteRobotPart: { resource: (r) => part(r.robotPartId), need: 'owner' },
  markPartAsMain: { resource: (r) => part(r.robotPartId), need: 'owner' },
  markPartForRestart: { resource: (r) => part(r.robotPartId), need: 'operator' },
  // write_robot: a part's name and config are the machine's.
  updateRobotPart: {
    validate: (r) => {
      requiredId('robot_part_id', r.robotPartId);
      displayName('name', r.name);
      givenConfig(r);
    },
    resource: (r) => part(r.robotPartId),
    need: 'owner',
  },
  // read_robot_history.
  getRobotPartHistory: { resource: (r) => part(r.robotPartId), need: 'operator' },
  listRobots: { resource: (r) => location(r.locationId), need: 'operator' },
  newRobot: {
    validate: (r) => {
      displayName('name', r.name);
      requiredId('location_id', r.locationId);
    },
    resource: (r) => location(r.locationId),
    need: 'owner',
  },
  updateRobot: {
    validate: (r) => {
      requiredId('robot_id', r.robotId);
      displayName('name', r.name);
      requiredId('location_id', r.locationId);
    },
    // Renaming needs owner on the machine; a move needs more, checked by the handler against the
    // destination (organization owner, or owner on both locations).
    resource: (r) => robot(r.robotId),
    need: 'owner',
  },
  deleteRobot: { resource: (r) => robot(r.robotId), need: 'owner' },
  getRobotMetadata: { resource: (r) => robot(r.robotId), need: 'operator' },
  getRobotPartMetadata: { resource: (r) => part(r.robotPartId), need: 'operator' },
  updateRobotMetadata: { validate: (r) => (requiredId('robot_id', r.robotId), metadataJson('metadata', r.metadata)), resource: (r) => robot(r.robotId), need: 'owner' },
  updateRobotPartMetadata: { validate: (r) => (requiredId('robot_part_id', r.robotPartId), metadataJson('metadata', r.metadata)), resource: (r) => part(r.robotPartId), need: 'owner' },
  listMachineSummaries: {
    validate: (r) => {
      requiredId('organization_id', r.organizationId);
      idList('fragment_ids', r.fragmentIds);
      idList('location_ids', r.locationIds);
    },
    // Lists the machines the caller can read in the organization (see the handler).
    resource: (r) => org(r.organizationId, 'organization_id'),
    need: 'sees',
  },
};
