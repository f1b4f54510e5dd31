/**
 * JSON values as configs hold them, and the bounds a stored config keeps. Pure: no Node, nothing of
 * ours, so the service (which stores and checks configs) and the desktop app (which edits and
 * resolves them) apply the same rules.
 */

/** A JSON value, as JSON.parse yields it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
/** A JSON object: what a part config, a fragment config and each block in them is. */
export interface JsonObject {
  [key: string]: JsonValue;
}

/**
 * Deepest nesting of objects and arrays a config may have. Real configs nest about ten levels. The
 * bound is what every reader can decode: a config is answered as a protobuf Struct too, and the
 * generated decoder stops at 100 levels of Struct messages — each level of JSON object costs three
 * (Struct, its fields entry, Value), so 33 is the deepest a client can read back. A config stored
 * deeper (it could arrive as JSON text) would make every later read of the part fail to decode.
 * Metadata's bound is the same (service/validate.ts).
 */
export const MAX_CONFIG_DEPTH = 32;
/**
 * Largest config, as UTF-8 JSON text. GetRobotPart answers the config twice (as a Struct and as the
 * stored text), and both must fit gRPC's 4 MiB message with room to spare; 1.5 MiB holds about 7,500
 * components.
 */
export const MAX_CONFIG_BYTES = 1.5 * 1024 * 1024;

/** Whether `value` is a JSON object (not an array, not null). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** How deeply `value` nests objects and arrays (0 for a scalar), counted without recursion so a hostile value cannot overflow the stack. */
export function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [v, d] = top;
    if (typeof v !== 'object' || v === null) continue;
    const here = d + 1;
    if (here > deepest) deepest = here;
    // Past the bound the exact figure does not matter: stop walking (a deep value may also be huge).
    if (here > MAX_CONFIG_DEPTH) return here;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, here]);
  }
  return deepest;
}

/** UTF-8 length of `text`, without Node's Buffer. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i += 1;
    } else bytes += 3;
  }
  return bytes;
}

/** What {@link checkConfigText} and {@link checkConfigValue} answer. */
export type ConfigCheck = { readonly ok: true; readonly config: JsonObject } | { readonly ok: false; readonly message: string };

/**
 * A config given as JSON text (kept verbatim by the service): it must parse, be a JSON object, and
 * stay within {@link MAX_CONFIG_BYTES} and {@link MAX_CONFIG_DEPTH}. The message says what is wrong
 * in words a person editing the config can act on.
 */
export function checkConfigText(text: string): ConfigCheck {
  const bytes = utf8Length(text);
  if (bytes > MAX_CONFIG_BYTES) return { ok: false, message: `the config is ${(bytes / 1048576).toFixed(2)} MiB of JSON; at most ${MAX_CONFIG_BYTES / 1048576} MiB may be stored` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    // JSON.parse says where (position) in its own words; a RangeError is nesting past the engine's stack.
    return { ok: false, message: e instanceof SyntaxError ? `the config is not valid JSON: ${e.message}` : `the config nests more than ${MAX_CONFIG_DEPTH} levels deep` };
  }
  return checkConfigValue(parsed);
}

/** A config given as a value (a decoded Struct): a JSON object within {@link MAX_CONFIG_DEPTH}. */
export function checkConfigValue(value: unknown): ConfigCheck {
  if (!isObject(value)) return { ok: false, message: `the config must be a JSON object, not ${describe(value)}` };
  if (depthOf(value) > MAX_CONFIG_DEPTH) return { ok: false, message: `the config nests more than ${MAX_CONFIG_DEPTH} levels deep` };
  return { ok: true, config: value };
}

/** A value's kind in words, for messages. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return 'a boolean';
  return typeof value;
}

/** A deep copy of a JSON value (structuredClone is not in every runtime this package runs in). */
export function copyJson<T extends JsonValue>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((v) => copyJson(v)) as T;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) setKey(out, k, copyJson(v));
  return out as T;
}

/**
 * `object[key] = value`, also for the key `__proto__`, which JSON.parse makes an own property but
 * an assignment would take as the object's prototype.
 */
export function setKey(object: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}
