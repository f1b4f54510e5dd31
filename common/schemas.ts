import { z } from 'zod';

/** An identifier of a resource of the service (organization, location, profile, …). */
export const id = z.string().trim().min(1, 'must not be empty').max(200, 'is too long');

/** A request that carries nothing. Strict, so stray fields are rejected rather than ignored. */
export const empty = z.object({}).strict();

/** `host:port`, as a gRPC target: a host name, IPv4 or bracketed IPv6, and a port 1–65535. */
export const serviceAddress = z
  .string()
  .trim()
  .regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/, 'must be host:port, for example fleet.example.com:443')
  .refine((v) => {
    const port = Number(v.slice(v.lastIndexOf(':') + 1));
    return port >= 1 && port <= 65535;
  }, 'port must be between 1 and 65535');

/** ISO-8601 instant, as every timestamp crosses the bridge (JSON has no dates). */
export type IsoTime = string;

/** The host part of a `host:port` service address (brackets of an IPv6 host removed), lower-cased. */
export function addressHost(address: string): string {
  const trimmed = address.trim();
  const host = trimmed.slice(0, Math.max(0, trimmed.lastIndexOf(':')));
  return (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host).toLowerCase();
}

/**
 * Whether a service address stays on this machine: `localhost`, 127.0.0.0/8 or ::1 (also written
 * out, or IPv4-mapped). Only there may an API key travel without TLS without asking: anywhere else
 * it crosses a network in cleartext.
 */
export function isLoopbackAddress(address: string): boolean {
  const host = addressHost(address);
  if (host === 'localhost') return true;
  const v4 = /^(?:::ffff:)?(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (v4) return v4.slice(1).every((n) => Number(n) <= 255) && v4[1] === '127';
  if (!host.includes(':')) return false;
  // IPv6: ::1 in any spelling (0:0:0:0:0:0:0:1, ::0:1, …).
  const [head = '', tail = ''] = host.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groups(head);
  const right = groups(tail);
  if (!host.includes('::') && left.length !== 8) return false;
  const all = host.includes('::') ? [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right] : left;
  if (all.length !== 8 || !all.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return false;
  return all.every((g, i) => Number.parseInt(g, 16) === (i === 7 ? 1 : 0));
}

/** A JSON value, as user-defined metadata holds them. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object with string keys: user-defined metadata of an organization, location, machine or part. */
export type JsonObject = { [key: string]: JsonValue };

/** Largest metadata object, as JSON text (docs/PROTOCOL.md: METADATA_TOO_LARGE beyond it). */
export const MAX_METADATA_BYTES = 64 * 1024;
/** Deepest nesting of objects and arrays in metadata (FIELD_INVALID beyond it). */
export const MAX_METADATA_DEPTH = 32;

/** How deep `value` nests objects and arrays (a scalar is 0, `{}` is 1). */
export function jsonDepth(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let deepest = 0;
  for (const child of Array.isArray(value) ? value : Object.values(value)) deepest = Math.max(deepest, jsonDepth(child));
  return deepest + 1;
}

/** Metadata as it crosses the bridge: a JSON object, at most 64 KiB as JSON and 32 levels deep. */
export const metadataObject = z
  .record(z.string(), z.json())
  .refine((v) => jsonDepth(v) <= MAX_METADATA_DEPTH, `must nest at most ${MAX_METADATA_DEPTH} levels deep`)
  .refine((v) => new TextEncoder().encode(JSON.stringify(v)).length <= MAX_METADATA_BYTES, `must be at most ${MAX_METADATA_BYTES / 1024} KiB as JSON`);

/** A display name of the fleet (organization, location, machine, part): trimmed, 1–200 characters, no control characters. */
export const displayName = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(200, 'is too long (200 characters at most)')
  .refine((v) => !/\p{Cc}/u.test(v), 'must not contain control characters');

/** A public namespace: lowercase letters, digits and dashes, 1–63 characters, no dash at either end. */
export const publicNamespace = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(63, 'is too long (63 characters at most)')
  .regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/, 'may hold lowercase letters, digits and dashes, and must not start or end with a dash');

/** Metadata as read: the object, when it was fetched, and whether it came from the cache (offline). */
export interface MetadataView {
  readonly metadata: JsonObject;
  readonly fetchedAt: IsoTime;
  /** True when the service could not be reached and this is the cached copy. */
  readonly fromCache: boolean;
}
