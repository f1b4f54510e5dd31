/**
 * What the domains that page through histories share (part configs, fragments): who made a change,
 * as the bridge says it, and page tokens that keep working when the service goes away between two
 * pages. A bridge token carries the service's own token (to ask the service for the next page) and
 * where the page starts in the cached copy (to answer the same page from the cache offline).
 */
import type { Editor } from '../../common/config';
import type { EditorInfo } from '../../proto/gen/fleet/app/v1/access';
import { AppError } from './errors';

export function editorFromWire(e: EditorInfo | undefined): Editor | null {
  if (e === undefined) return null;
  return { kind: e.identityType === 'user' ? 'user' : 'key', id: e.identityId, displayName: e.displayName };
}

/** Where a history page starts: the service's token (absent for a page the cache answered) and a position in the cached copy. */
export interface HistoryCursor {
  readonly service?: string;
  /** Entries before the page (part history), or the revision the page goes below (fragment history). */
  readonly at: number;
}

/** The bridge's page token for `cursor`: opaque to the renderer. */
export function encodeCursor(cursor: HistoryCursor): string {
  return Buffer.from(JSON.stringify(cursor.service === undefined ? { a: cursor.at } : { s: cursor.service, a: cursor.at }), 'utf8').toString('base64url');
}

/** The cursor of a page token this app gave out; the first page without one. */
export function decodeCursor(token: string | undefined, first: number): HistoryCursor {
  if (token === undefined || token === '') return { at: first };
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    parsed = null;
  }
  const { s, a } = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as { s?: unknown; a?: unknown };
  if (!Number.isSafeInteger(a) || (a as number) < 0 || (s !== undefined && (typeof s !== 'string' || s === ''))) {
    throw new AppError('invalid', 'pageToken is not a page token this app gave out; ask for the first page again.');
  }
  return s === undefined ? { at: a as number } : { service: s as string, at: a as number };
}
