/** Metadata of organizations, locations, machines and parts, cached as it was last read or written. */
import type { IsoTime, JsonObject } from '../../common/schemas';
import type { CacheDb } from './cache';

export type MetadataResource = 'organization' | 'location' | 'machine' | 'part';

export function cachedMetadata(db: CacheDb, type: MetadataResource, id: string): { metadata: JsonObject; fetchedAt: IsoTime } | null {
  const row = db.prepare('SELECT json, fetched_at FROM metadata WHERE resource_type = ? AND resource_id = ?').get(type, id) as { json: string; fetched_at: string } | undefined;
  return row ? { metadata: JSON.parse(row.json) as JsonObject, fetchedAt: row.fetched_at } : null;
}

export function putMetadata(db: CacheDb, type: MetadataResource, id: string, metadata: JsonObject, at: IsoTime): void {
  db.prepare(
    'INSERT INTO metadata (resource_type, resource_id, json, fetched_at) VALUES (?, ?, ?, ?) ON CONFLICT (resource_type, resource_id) DO UPDATE SET json = excluded.json, fetched_at = excluded.fetched_at',
  ).run(type, id, JSON.stringify(metadata), at);
}
