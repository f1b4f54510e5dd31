/** The permission rows of the log operations: a part's logs are read with operator on its machine (docs/PROTOCOL.md sections 6 and 10). */
import type { AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import { part, type Rules } from '../permissions/rules';
import { logRequest } from './validate';

export const logRules: Rules<typeof AppServiceService> = {
  getRobotPartLogs: { validate: (r) => void logRequest(r), resource: (r) => part(r.robotPartId), need: 'operator' },
  tailRobotPartLogs: { resource: (r) => part(r.robotPartId), need: 'operator' },
};
