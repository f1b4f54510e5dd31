/**
 * The registry's side of publishing a trained model (training/publish.ts): the ML model item, the
 * version and its file. Training declares what it needs (its ModelRegistry) and server.ts hands
 * this in, since a domain imports no other domain. Synchronous, so that it runs inside the job's
 * transaction.
 */
import type Database from 'better-sqlite3';
import { PackageType, Visibility } from '../../proto/gen/fleet/app/v1/registry';
import { wireId } from '../permissions/engine';
import type { RegistryFiles } from './files';
import { RegistryStore } from './store';

export class ModelShelf {
  private readonly store: RegistryStore;

  constructor(
    private readonly db: Database.Database,
    private readonly files: RegistryFiles,
  ) {
    // No urls are answered from here, so no base url is needed.
    this.store = new RegistryStore(db, () => '');
  }

  /** A new private ML model item named `name` in the organization. */
  createModelItem(orgId: string, name: string, description: string, now: Date): { id: string; type: number; wire_id: string } {
    const row = this.store.create(orgId, name, PackageType.PACKAGE_TYPE_ML_MODEL, now);
    this.store.update(row.id, { description, visibility: Visibility.VISIBILITY_PRIVATE }, now);
    return { id: row.id, type: row.type, wire_id: wireId(row) };
  }

  /** Whether `version` of the item exists already: a file for `platform`, or the version by any other upload. */
  hasVersion(itemId: string, version: string, platform: string): boolean {
    return this.store.fileOf(itemId, version, platform) !== undefined || this.db.prepare('SELECT 1 FROM registry_versions WHERE item_id = ? AND version = ?').get(itemId, version) !== undefined;
  }

  /** Where the file of `version` for `platform` is kept. */
  path(itemId: string, version: string, platform: string): string {
    return this.files.path(itemId, version, platform);
  }

  /** Record the file written at {@link path} as `version` of the item. */
  addFile(itemId: string, version: string, platform: string, sizeBytes: number, sha256: string, now: Date): void {
    this.store.addFile(this.store.row(itemId), version, platform, sizeBytes, sha256, now);
  }
}
