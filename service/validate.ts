/**
 * The request-shape rules of docs/PROTOCOL.md section 6, shared by every handler: ids, display
 * names, public namespaces, user-defined metadata, registry item names and ids (and how a config that
 * does not resolve is refused, which parts and fragments share). Each throws INVALID_ARGUMENT naming
 * the field, with a message that says what is wrong; none looks anything up (shape comes before
 * existence in the order of checks).
 */
import { FleetError, invalidArgument, Reason } from './errors';
import { status } from '@grpc/grpc-js';
import type { ConfigIssue } from '../fleetconfig';

/** Longest id the protocol accepts; a longer one is INVALID_ARGUMENT rather than NOT_FOUND. */
export const MAX_ID_LENGTH = 200;
/** Longest display name, in characters. */
export const MAX_NAME_LENGTH = 200;
/** Largest user-defined metadata object, as JSON (UTF-8 bytes). */
export const MAX_METADATA_BYTES = 64 * 1024;
/** Deepest nesting of objects and arrays in user-defined metadata. */
export const MAX_METADATA_DEPTH = 32;
/** Longest free-text field (region, cid). */
export const MAX_TEXT_LENGTH = 200;

const length = (s: string) => [...s].length;

/** A required id: not empty, at most {@link MAX_ID_LENGTH} characters. */
export function requiredId(field: string, value: string): string {
  if (value === '') throw invalidArgument(field, Reason.REQUIRED_FIELD_MISSING, `${field} is required`);
  // Counting code points allocates; a string of at most MAX_ID_LENGTH UTF-16 units has no more code points than that (CheckPermissions checks 10,000 ids a call).
  if (value.length > MAX_ID_LENGTH && length(value) > MAX_ID_LENGTH) throw invalidArgument(field, Reason.FIELD_TOO_LONG, `${field} must be at most ${MAX_ID_LENGTH} characters`);
  return value;
}

/** An optional id (empty means none): at most {@link MAX_ID_LENGTH} characters. */
export function optionalId(field: string, value: string): string {
  return value === '' ? '' : requiredId(field, value);
}

/** Every id of a list, as `field[i]`. */
export function idList(field: string, values: readonly string[]): string[] {
  return values.map((v, i) => requiredId(`${field}[${i}]`, v));
}

/** A display name to store: trimmed, not blank, at most {@link MAX_NAME_LENGTH} characters, no control characters. */
export function displayName(field: string, raw: string): string {
  const name = raw.trim();
  if (name === '') throw invalidArgument(field, Reason.REQUIRED_FIELD_MISSING, `${field} is required and must not be blank`);
  if (length(name) > MAX_NAME_LENGTH) throw invalidArgument(field, Reason.FIELD_TOO_LONG, `${field} must be at most ${MAX_NAME_LENGTH} characters`);
  if (/\p{Cc}/u.test(name)) throw invalidArgument(field, Reason.FIELD_INVALID, `${field} must not contain control characters`);
  return name;
}

/** Free text such as a region or a CRM id: at most {@link MAX_TEXT_LENGTH} characters, no control characters. */
export function freeText(field: string, raw: string): string {
  const text = raw.trim();
  if (length(text) > MAX_TEXT_LENGTH) throw invalidArgument(field, Reason.FIELD_TOO_LONG, `${field} must be at most ${MAX_TEXT_LENGTH} characters`);
  if (/\p{Cc}/u.test(text)) throw invalidArgument(field, Reason.FIELD_INVALID, `${field} must not contain control characters`);
  return text;
}

const NAMESPACE = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** A public namespace: lowercase letters, digits and `-`, 1–63 characters, no dash at either end. */
export function publicNamespace(field: string, value: string): string {
  if (value === '') throw invalidArgument(field, Reason.REQUIRED_FIELD_MISSING, `${field} is required`);
  if (!NAMESPACE.test(value)) {
    throw invalidArgument(field, Reason.NAMESPACE_INVALID, `${field} may hold only lowercase letters, digits and dashes, 1 to 63 characters, not starting or ending with a dash`);
  }
  return value;
}

function depth(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let deepest = 0;
  for (const child of Array.isArray(value) ? value : Object.values(value)) deepest = Math.max(deepest, depth(child));
  return deepest + 1;
}

/**
 * User-defined metadata to store, as JSON text: present (send {} to clear), a JSON object, at most
 * {@link MAX_METADATA_BYTES} bytes as JSON and {@link MAX_METADATA_DEPTH} levels deep.
 */
export function metadataJson(field: string, metadata: { [key: string]: unknown } | undefined): string {
  if (metadata === undefined) throw invalidArgument(field, Reason.REQUIRED_FIELD_MISSING, `${field} is required; send {} to clear it`);
  if (depth(metadata) > MAX_METADATA_DEPTH) throw invalidArgument(field, Reason.FIELD_INVALID, `${field} must nest at most ${MAX_METADATA_DEPTH} levels deep`);
  const json = JSON.stringify(metadata);
  if (Buffer.byteLength(json) > MAX_METADATA_BYTES) {
    throw invalidArgument(field, Reason.METADATA_TOO_LARGE, `${field} is ${Math.ceil(Buffer.byteLength(json) / 1024)} KiB as JSON; at most ${MAX_METADATA_BYTES / 1024} KiB may be stored`);
  }
  return json;
}

/** The stored metadata text as the object the wire carries. */
export function metadataObject(json: string): { [key: string]: unknown } {
  return JSON.parse(json) as { [key: string]: unknown };
}

/** NOT_FOUND with the same words whether the resource is missing or only invisible (existence must not leak). */
export function notFound(reason: Reason, what: string, id: string, field?: string): FleetError {
  return new FleetError(status.NOT_FOUND, reason, `no ${what} ${JSON.stringify(id.length > 60 ? `${id.slice(0, 60)}…` : id)} is visible to this API key`, field);
}

/** A registry item's name. Shared: the rows of several domains name registry items, and the engine resolves their ids. */
const NAME = /^[a-z0-9][a-z0-9_-]*$/;

/** A registry item or module name: lowercase letters, digits, `-` and `_`, starting with a letter or digit; 1–200 characters. */
export function registryName(field: string, value: string): string {
  if (value === '') throw invalidArgument(field, Reason.REQUIRED_FIELD_MISSING, `${field} is required`);
  if (value.length > MAX_NAME_LENGTH) throw invalidArgument(field, Reason.FIELD_TOO_LONG, `${field} must be at most ${MAX_NAME_LENGTH} characters`);
  if (!NAME.test(value)) throw invalidArgument(field, Reason.FIELD_INVALID, `${field} may hold only lowercase letters, digits, "-" and "_", starting with a letter or digit`);
  return value;
}

/** An item or module id: `<public namespace or organization id>:<name>`. */
export function registryId(field: string, value: string): string {
  requiredId(field, value);
  const colon = value.indexOf(':');
  if (colon <= 0 || colon === value.length - 1) {
    throw invalidArgument(field, Reason.FIELD_INVALID, `${field} must have the form <public namespace or organization id>:<name>, e.g. "acme:lidar-driver"`);
  }
  if (!NAME.test(value.slice(colon + 1))) throw invalidArgument(field, Reason.FIELD_INVALID, `the name in ${field} may hold only lowercase letters, digits, "-" and "_"`);
  return value;
}

/**
 * CONFIG_INVALID for a config that does not resolve (a part's or a fragment's; docs/PROTOCOL.md, "How
 * a config resolves"): the first three blocking issues in the order found, each saying where and what.
 */
export function configInvalid(field: string, issues: readonly ConfigIssue[]): FleetError {
  const shown = issues.slice(0, 3).map((i) => i.message);
  const more = issues.length > 3 ? ` (and ${issues.length - 3} more)` : '';
  return invalidArgument(field, Reason.CONFIG_INVALID, `the config cannot be stored: ${shown.join('; ')}${more}`);
}
