/**
 * Paging as docs/PROTOCOL.md section 7 sets it. A page token is opaque to clients; inside it is the
 * sort key of the last entry returned (keyset paging: an entry created or deleted while a client
 * pages can never make another appear twice), how many entries were returned so far (for total
 * caps), a fingerprint of the request it belongs to, and when it was issued — signed with a secret
 * of the data dir, so a token cannot be forged, moved to another request, or kept past 24 hours.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { invalidArgument, Reason } from './errors';

/** Entries per page when the request asks for 0. */
export const DEFAULT_PAGE_SIZE = 100;
/** Larger requested sizes are lowered to this. */
export const MAX_PAGE_SIZE = 1000;
/** How long a token stays valid. */
export const PAGE_TOKEN_TTL_MS = 24 * 60 * 60 * 1000;

/** The page size to use for a requested one (0 = default, capped); a negative one is INVALID_ARGUMENT. */
export function pageSize(field: string, requested: number, defaults: { size?: number; max?: number } = {}): number {
  if (requested < 0) throw invalidArgument(field, Reason.PAGE_SIZE_INVALID, `${field} must not be negative`);
  if (requested === 0) return defaults.size ?? DEFAULT_PAGE_SIZE;
  return Math.min(requested, defaults.max ?? MAX_PAGE_SIZE);
}

/** Where a listing resumes: the sort key of the last entry returned, and how many were returned in all. */
export interface Cursor {
  readonly after: readonly (string | number)[];
  readonly returned: number;
}

interface Payload {
  /** Sort key of the last entry. */
  a: (string | number)[];
  /** Entries returned so far. */
  n: number;
  /** Fingerprint of the request. */
  f: string;
  /** Issued at, epoch ms. */
  t: number;
}

const invalidToken = (why: string) => invalidArgument('page_token', Reason.PAGE_TOKEN_INVALID, `page_token is not valid: ${why}; start again without a page token`);

export class PageTokens {
  constructor(
    private readonly secret: Uint8Array,
    private readonly now: () => number = Date.now,
  ) {}

  private sign(body: string): string {
    return createHmac('sha256', this.secret).update('page-token\0').update(body).digest('base64url').slice(0, 22);
  }

  /** A fingerprint of every request field but the page token (and the page size, which may change between pages). */
  static fingerprint(method: string, fields: unknown): string {
    return createHash('sha256').update(method).update('\0').update(JSON.stringify(fields)).digest('base64url').slice(0, 16);
  }

  issue(fingerprint: string, cursor: Cursor): string {
    const body = Buffer.from(JSON.stringify({ a: [...cursor.after], n: cursor.returned, f: fingerprint, t: this.now() } satisfies Payload)).toString('base64url');
    return `${body}.${this.sign(body)}`;
  }

  /** The cursor of `token`, or null for an empty token (the first page). Throws PAGE_TOKEN_INVALID otherwise. */
  read(fingerprint: string, token: string): Cursor | null {
    if (token === '') return null;
    const [body, signature, extra] = token.split('.');
    if (body === undefined || signature === undefined || extra !== undefined || token.length > 4096) throw invalidToken('it is malformed');
    const expected = Buffer.from(this.sign(body));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalidToken('it was not issued by this service');
    let payload: Payload;
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Payload;
    } catch {
      throw invalidToken('it is malformed');
    }
    if (payload.f !== fingerprint) throw invalidToken('it belongs to another request (every field but page_token and the page size must stay the same)');
    if (this.now() - payload.t > PAGE_TOKEN_TTL_MS) throw invalidToken('it expired (tokens are valid for 24 hours)');
    return { after: payload.a, returned: payload.n };
  }
}
