/**
 * The request-shape checks of the part operations beyond the shared ones (validate.ts): a config given
 * to UpdateRobotPart as JSON text or as a Struct. Shape only: whether its fragments resolve is the
 * handler's question, asked of the fragments domain.
 */
import { checkConfigText, checkConfigValue, MAX_CONFIG_BYTES, type JsonObject } from '../../fleetconfig';
import type { UpdateRobotPartRequest } from '../../proto/gen/fleet/app/v1/machines';
import { invalidArgument, Reason } from '../errors';

/** A config to store: its text (kept verbatim), the value, and the request field it came from. */
export interface GivenConfig {
  readonly text: string;
  readonly config: JsonObject;
  readonly field: 'robot_config_json' | 'robot_config';
}

// The rule's check and the handler both ask; a config may be 1.5 MiB, so it is parsed once per request.
const checked = new WeakMap<UpdateRobotPartRequest, GivenConfig | undefined>();

/**
 * The config an UpdateRobotPart request gives, or undefined when it gives none (the stored one stays).
 * `robot_config_json` wins over `robot_config` and is kept as given, key order included; either must
 * be a JSON object within the bounds of fleetconfig/json.ts (`CONFIG_INVALID`, naming the field).
 */
export function givenConfig(request: UpdateRobotPartRequest): GivenConfig | undefined {
  if (checked.has(request)) return checked.get(request);
  let given: GivenConfig | undefined;
  if (request.robotConfigJson !== undefined) {
    const check = checkConfigText(request.robotConfigJson);
    if (!check.ok) throw invalidArgument('robot_config_json', Reason.CONFIG_INVALID, `robot_config_json is not a config the part can have: ${check.message}`);
    given = { text: request.robotConfigJson, config: check.config, field: 'robot_config_json' };
  } else if (request.robotConfig !== undefined) {
    const check = checkConfigValue(request.robotConfig);
    if (!check.ok) throw invalidArgument('robot_config', Reason.CONFIG_INVALID, `robot_config is not a config the part can have: ${check.message}`);
    const text = JSON.stringify(check.config);
    const bytes = Buffer.byteLength(text);
    if (bytes > MAX_CONFIG_BYTES) {
      throw invalidArgument('robot_config', Reason.CONFIG_INVALID, `robot_config is ${(bytes / 1048576).toFixed(2)} MiB as JSON; at most ${MAX_CONFIG_BYTES / 1048576} MiB may be stored`);
    }
    given = { text, config: check.config, field: 'robot_config' };
  }
  checked.set(request, given);
  return given;
}
