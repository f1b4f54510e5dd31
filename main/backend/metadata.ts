/**
 * Metadata reads and writes as the bridge shows them: organizations, locations, machines and parts
 * all keep theirs the same way, so the domains share these instead of taking them from each other.
 */
import type { MetadataView } from '../../common/schemas';
import type { CacheDb } from '../cache/cache';
import { cachedMetadata, type MetadataResource } from '../cache/metadata';
import type { CacheRunner } from '../connection/connection';

/** Metadata read or written just now: cached, and shown as fresh. */
export async function freshMetadata(run: CacheRunner, type: MetadataResource, id: string, metadata: MetadataView['metadata']): Promise<MetadataView> {
  const at = new Date().toISOString();
  await run('putMetadata', type, id, metadata, at);
  return { metadata, fetchedAt: at, fromCache: false };
}

/** The cached metadata as a view marked as cached, or null. */
export function cachedMetadataView(cache: CacheDb, type: MetadataResource, id: string): MetadataView | null {
  const cached = cachedMetadata(cache, type, id);
  return cached ? { ...cached, fromCache: true } : null;
}
