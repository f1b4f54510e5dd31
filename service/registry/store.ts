/**
 * The registry's rows: items (modules among them), their versions and files, and interrupted
 * uploads. Files' bytes live in the data dir (files.ts); a file row is written only once its bytes
 * are stored whole, in the same transaction as its version, so nothing half-uploaded is ever listed.
 */
import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import type Database from 'better-sqlite3';
import type { App } from '../../proto/gen/fleet/app/v1/apps';
import { PackageType, RegistryItemStatus, Visibility, type Model, type Module, type ModuleVersion, type RegistryItem } from '../../proto/gen/fleet/app/v1/registry';
import { FleetError, present, Reason } from '../errors';
import { wireId } from '../permissions/engine';

export interface ItemRow {
  readonly id: string;
  readonly organization_id: string;
  readonly namespace: string;
  readonly name: string;
  readonly type: number;
  readonly visibility: number;
  readonly description: string;
  readonly url: string;
  readonly markdown: string | null;
  readonly entrypoint: string;
  readonly models: string;
  readonly apps: string;
  readonly first_run: string;
  readonly created_at: string;
  readonly updated_at: string;
  /** Sorted platforms of the item's files, a JSON array (kept by a trigger, migration 0016). */
  readonly platforms: string;
  /** Parts whose config names the item, in either id form (kept by triggers, migration 0016). */
  readonly usage: number;
}

/** A version of an item joined with one of its files (`platform` null: a version without files). */
export interface VersionFileRow {
  readonly item_id: string;
  readonly version: string;
  readonly entrypoint: string;
  readonly models: string;
  readonly apps: string;
  readonly uploaded_at: string;
  readonly platform: string | null;
  readonly size_bytes: number;
  readonly sha256: string;
  readonly file_uploaded_at: string;
}

/** A module's manifest, as UpdateModule writes it whole. */
export interface Manifest {
  readonly url: string;
  readonly description: string;
  readonly models: readonly Model[];
  readonly entrypoint: string;
  readonly visibility: number;
  readonly apps: readonly App[];
  readonly firstRun: string;
}

/** What ListRegistryItems filters on; empty lists mean no filter. */
export interface ItemFilter {
  /** One organization's items, or every organization's (null). */
  readonly organizationId: string | null;
  readonly types: readonly number[];
  readonly visibilities: readonly number[];
  readonly platforms: readonly string[];
  readonly statuses: readonly number[];
  readonly searchTerm: string;
  readonly namespaces: readonly string[];
}

const SELECT = `SELECT r.id, r.organization_id, coalesce(o.public_namespace, '') AS namespace, r.name, r.type, r.visibility, r.description,
  r.url, r.markdown, r.entrypoint, r.models, r.apps, r.first_run, r.created_at, r.updated_at, r.platforms, r.usage
  FROM registry_items r JOIN organizations o ON o.id = r.organization_id`;

/**
 * A key that orders versions as text: every run of digits is padded to 8 places, so numbers compare
 * numerically — `1.10.2` → `00000001.00000010.00000002` (semantic versions), and free labels of
 * trained models too: `2` < `10`, `2026-11-25` → `00002026-00000011-00000025`, `rc2` < `rc10`.
 */
export function versionKey(version: string): string {
  return version.replace(/\d+/g, (n) => n.padStart(8, '0'));
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export class RegistryStore {
  constructor(
    private readonly db: Database.Database,
    /** Base of the urls the service answers (module pages and file downloads), without a trailing slash. */
    private readonly baseUrl: () => string,
  ) {}

  row(id: string): ItemRow {
    return present(this.find(id), `registry item ${id}`);
  }

  /** The item's row, or undefined when it was deleted (e.g. while one of its files was uploading). */
  find(id: string): ItemRow | undefined {
    return this.db.prepare(`${SELECT} WHERE r.id = ?`).get(id) as ItemRow | undefined;
  }

  /** The module's page in the registry. */
  pageUrl(row: Pick<ItemRow, 'namespace' | 'organization_id' | 'name'>): string {
    return `${this.baseUrl()}/registry/${encodeURIComponent(row.namespace || row.organization_id)}/${encodeURIComponent(row.name)}`;
  }

  /** Where one file of a version can be downloaded. */
  fileUrl(row: Pick<ItemRow, 'namespace' | 'organization_id' | 'name'>, version: string, platform: string): string {
    return `${this.pageUrl(row)}/${encodeURIComponent(version)}/${platform.split('/').map(encodeURIComponent).join('/')}`;
  }

  /** Create an item (private, in development). ALREADY_EXISTS when the organization has one of that name. */
  create(orgId: string, name: string, type: number, now = new Date()): ItemRow {
    const id = randomUUID();
    const at = now.toISOString();
    try {
      this.db.prepare('INSERT INTO registry_items (id, organization_id, name, type, visibility, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(id, orgId, name, type, Visibility.VISIBILITY_PRIVATE, at, at);
    } catch (e) {
      if (e instanceof Error && /UNIQUE/.test(e.message)) {
        throw new FleetError(status.ALREADY_EXISTS, Reason.NAME_TAKEN, `the organization already has a registry item or module named ${JSON.stringify(name)}; names are unique within an organization`, 'name');
      }
      throw e;
    }
    return this.row(id);
  }

  update(id: string, changes: { description: string; visibility: number; url?: string }, now = new Date()): void {
    this.db
      .prepare('UPDATE registry_items SET description = ?, visibility = ?, url = coalesce(?, url), updated_at = ? WHERE id = ?')
      .run(changes.description, changes.visibility, changes.url ?? null, now.toISOString(), id);
  }

  /** Set (or clear, with null) an item's markdown documentation. */
  setDocumentation(id: string, markdown: string | null): void {
    this.db.prepare('UPDATE registry_items SET markdown = ? WHERE id = ?').run(markdown, id);
  }

  updateManifest(id: string, m: Manifest, now = new Date()): void {
    this.db
      .prepare('UPDATE registry_items SET url = ?, description = ?, models = ?, entrypoint = ?, visibility = ?, apps = ?, first_run = ?, updated_at = ? WHERE id = ?')
      .run(m.url, m.description, JSON.stringify(m.models), m.entrypoint, m.visibility, JSON.stringify(m.apps), m.firstRun, now.toISOString(), id);
  }

  delete(id: string): void {
    this.db.prepare('DELETE FROM registry_items WHERE id = ?').run(id);
  }

  /** Another module of the organization that declares an app of this name, if any. */
  appOwner(orgId: string, appName: string, exceptId: string): string | undefined {
    return this.db
      .prepare(`SELECT r.name FROM registry_items r, json_each(r.apps) a WHERE r.organization_id = ? AND r.id <> ? AND json_extract(a.value, '$.name') = ? LIMIT 1`)
      .pluck()
      .get(orgId, exceptId, appName) as string | undefined;
  }

  /** The item as the contract answers it; `versions` only where they were asked for (ListRegistryItems' include_versions). */
  toItem(row: ItemRow, includeMarkdown: boolean, versions?: readonly ModuleVersion[]): RegistryItem {
    const files = JSON.parse(row.platforms) as string[];
    return {
      itemId: wireId(row),
      organizationId: row.organization_id,
      publicNamespace: row.namespace,
      name: row.name,
      type: row.type,
      visibility: row.visibility,
      status: files.length > 0 ? RegistryItemStatus.REGISTRY_ITEM_STATUS_PUBLISHED : RegistryItemStatus.REGISTRY_ITEM_STATUS_IN_DEVELOPMENT,
      description: row.description,
      url: row.url,
      platforms: files,
      markdownDocumentation: includeMarkdown && row.markdown !== null ? row.markdown : undefined,
      createdAt: new Date(row.created_at),
      updatedAt: new Date(row.updated_at),
      totalRobotUsage: row.type === PackageType.PACKAGE_TYPE_MODULE ? row.usage : 0,
      versions: versions ? [...versions] : [],
    };
  }

  /** Versions of an item, oldest first, each with its files. */
  versions(row: ItemRow): ModuleVersion[] {
    return this.versionsOf([row]).get(row.id) ?? [];
  }

  /**
   * The rows {@link versionsOf} makes versions of: every version of the items with each of its
   * files (a version without files once, with a null platform), by item, version order, platform.
   */
  versionRows(rows: readonly ItemRow[]): VersionFileRow[] {
    return this.db
      .prepare(
        `SELECT v.item_id, v.version, v.entrypoint, v.models, v.apps, v.uploaded_at, f.platform, f.size_bytes, f.sha256, f.uploaded_at AS file_uploaded_at
           FROM registry_versions v LEFT JOIN registry_files f ON f.item_id = v.item_id AND f.version = v.version
          WHERE v.item_id IN (SELECT value FROM json_each(?)) ORDER BY v.item_id, v.version_key, f.platform`,
      )
      .all(JSON.stringify(rows.map((r) => r.id))) as VersionFileRow[];
  }

  /**
   * Versions of each of `rows` (by item id), oldest first, each with its files: one query whatever
   * the number of items (ListRegistryItems' include_versions answers a page with them).
   */
  versionsOf(rows: readonly ItemRow[]): Map<string, ModuleVersion[]> {
    const found = this.versionRows(rows);
    const byId = new Map(rows.map((r) => [r.id, r]));
    const out = new Map<string, ModuleVersion[]>(rows.map((r) => [r.id, []]));
    let last: ModuleVersion | undefined;
    let lastItem = '';
    for (const v of found) {
      if (last === undefined || lastItem !== v.item_id || last.version !== v.version) {
        last = { version: v.version, platforms: [], models: JSON.parse(v.models) as Model[], entrypoint: v.entrypoint, apps: JSON.parse(v.apps) as App[], uploadedAt: new Date(v.uploaded_at), files: [] };
        lastItem = v.item_id;
        out.get(v.item_id)?.push(last);
      }
      if (v.platform === null) continue;
      last.platforms.push(v.platform);
      const row = present(byId.get(v.item_id), `listed item ${v.item_id}`);
      last.files.push({ platform: v.platform, sizeBytes: v.size_bytes, sha256: v.sha256, uploadedAt: new Date(v.file_uploaded_at), url: this.fileUrl(row, v.version, v.platform) });
    }
    return out;
  }

  toModule(row: ItemRow): Module {
    return {
      moduleId: wireId(row),
      name: row.name,
      organizationId: row.organization_id,
      url: row.url,
      description: row.description,
      models: JSON.parse(row.models) as Model[],
      entrypoint: row.entrypoint,
      visibility: row.visibility,
      versions: this.versions(row),
      apps: JSON.parse(row.apps) as App[],
      firstRun: row.first_run,
      createdAt: new Date(row.created_at),
      updatedAt: new Date(row.updated_at),
    };
  }

  /**
   * One page of items, by organization then name (keyset: after `after`). `visibleOrgs`: the
   * organizations whose every item the caller sees; other organizations' items show only when public
   * (unlisted ones are found by id, never listed to outsiders).
   */
  list(filter: ItemFilter, visibleOrgs: readonly string[], after: readonly [string, string] | null, limit: number): { rows: ItemRow[]; more: boolean } {
    const where: string[] = [`(r.organization_id IN (SELECT value FROM json_each(@visible)) OR r.visibility = ${Visibility.VISIBILITY_PUBLIC})`];
    const params: Record<string, unknown> = { visible: JSON.stringify(visibleOrgs), limit: limit + 1 };
    if (filter.organizationId !== null) {
      where.push('r.organization_id = @org');
      params.org = filter.organizationId;
    }
    if (filter.types.length > 0) {
      where.push('r.type IN (SELECT value FROM json_each(@types))');
      params.types = JSON.stringify(filter.types);
    }
    if (filter.visibilities.length > 0) {
      where.push('r.visibility IN (SELECT value FROM json_each(@visibilities))');
      params.visibilities = JSON.stringify(filter.visibilities);
    }
    if (filter.namespaces.length > 0) {
      where.push('o.public_namespace IN (SELECT value FROM json_each(@namespaces))');
      params.namespaces = JSON.stringify(filter.namespaces);
    }
    if (filter.searchTerm !== '') {
      where.push(`(r.name LIKE @term ESCAPE '\\' OR r.description LIKE @term ESCAPE '\\')`);
      params.term = `%${escapeLike(filter.searchTerm)}%`;
    }
    if (filter.statuses.length === 1) {
      const published = filter.statuses[0] === RegistryItemStatus.REGISTRY_ITEM_STATUS_PUBLISHED;
      where.push(`r.platforms ${published ? '<>' : '='} '[]'`);
    }
    if (filter.platforms.length > 0) {
      // A file for a listed platform, `os/any` matching both ways: the exact platform, its `os/any`,
      // or any architecture of an os asked for as `os/any`.
      const exact = new Set<string>();
      const anyOf = new Set<string>();
      for (const wanted of filter.platforms) {
        const [os = '', arch = ''] = wanted.split('/');
        exact.add(wanted);
        exact.add(`${os}/any`);
        if (arch === 'any') anyOf.add(os);
      }
      where.push(`EXISTS (SELECT 1 FROM registry_files f WHERE f.item_id = r.id
        AND (f.platform IN (SELECT value FROM json_each(@exact)) OR substr(f.platform, 1, instr(f.platform, '/') - 1) IN (SELECT value FROM json_each(@anyOf))))`);
      params.exact = JSON.stringify([...exact]);
      params.anyOf = JSON.stringify([...anyOf]);
    }
    if (after !== null) {
      where.push('(r.organization_id, r.name) > (@afterOrg, @afterName)');
      params.afterOrg = after[0];
      params.afterName = after[1];
    }
    const rows = this.db.prepare(`${SELECT} WHERE ${where.join(' AND ')} ORDER BY r.organization_id, r.name LIMIT @limit`).all(params) as ItemRow[];
    return { rows: rows.slice(0, limit), more: rows.length > limit };
  }

  /** Modules of an organization, by name: every one for a member (`includePrivate`), the public ones for anyone else. */
  modules(orgId: string, includePrivate: boolean, afterName: string | null, limit: number): { rows: ItemRow[]; more: boolean } {
    const rows = this.db
      .prepare(
        `${SELECT} WHERE r.organization_id = ? AND r.type = ${PackageType.PACKAGE_TYPE_MODULE} AND (? OR r.visibility = ${Visibility.VISIBILITY_PUBLIC}) AND r.name > ?
         ORDER BY r.name LIMIT ?`,
      )
      .all(orgId, includePrivate ? 1 : 0, afterName ?? '', limit + 1) as ItemRow[];
    return { rows: rows.slice(0, limit), more: rows.length > limit };
  }

  /** Whether the organization has any item an outsider sees in listings (public; unlisted ones are found by id only). */
  hasPublic(orgId: string, type?: number): boolean {
    return (
      this.db
        .prepare(`SELECT 1 FROM registry_items WHERE organization_id = ? AND visibility = ${Visibility.VISIBILITY_PUBLIC} AND (? IS NULL OR type = ?) LIMIT 1`)
        .get(orgId, type ?? null, type ?? null) !== undefined
    );
  }

  // --- files ---

  fileOf(itemId: string, version: string, platform: string): { size_bytes: number; sha256: string } | undefined {
    return this.db.prepare('SELECT size_bytes, sha256 FROM registry_files WHERE item_id = ? AND version = ? AND platform = ?').get(itemId, version, platform) as
      | { size_bytes: number; sha256: string }
      | undefined;
  }

  /**
   * Record a file stored whole: its version (with the item's manifest as it is now, when the
   * version is new) and the file, in one transaction.
   */
  addFile(row: ItemRow, version: string, platform: string, sizeBytes: number, sha256: string, now = new Date()): void {
    const at = now.toISOString();
    this.db.transaction(() => {
      this.db
        .prepare('INSERT INTO registry_versions (item_id, version, version_key, entrypoint, models, apps, uploaded_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING')
        .run(row.id, version, versionKey(version), row.entrypoint, row.models, row.apps, at);
      this.db.prepare('INSERT INTO registry_files (item_id, version, platform, size_bytes, sha256, uploaded_at) VALUES (?, ?, ?, ?, ?, ?)').run(row.id, version, platform, sizeBytes, sha256, at);
      this.db.prepare('DELETE FROM registry_uploads WHERE item_id = ? AND version = ? AND platform = ?').run(row.id, version, platform);
    })();
  }

  upload(itemId: string, version: string, platform: string): { committed: number; updated_at: string } | undefined {
    return this.db.prepare('SELECT committed, updated_at FROM registry_uploads WHERE item_id = ? AND version = ? AND platform = ?').get(itemId, version, platform) as
      | { committed: number; updated_at: string }
      | undefined;
  }

  saveUpload(itemId: string, version: string, platform: string, committed: number, now = new Date()): void {
    const at = now.toISOString();
    this.db
      .prepare(
        `INSERT INTO registry_uploads (item_id, version, platform, committed, started_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (item_id, version, platform) DO UPDATE SET committed = excluded.committed, updated_at = excluded.updated_at`,
      )
      .run(itemId, version, platform, committed, at, at);
  }

  dropUpload(itemId: string, version: string, platform: string): void {
    this.db.prepare('DELETE FROM registry_uploads WHERE item_id = ? AND version = ? AND platform = ?').run(itemId, version, platform);
  }

  /** Uploads not continued since `before` (ISO time): candidates for the sweep, which leaves streams under way alone. */
  uploadsBefore(before: string): { item_id: string; version: string; platform: string }[] {
    return this.db.prepare('SELECT item_id, version, platform FROM registry_uploads WHERE updated_at < ?').all(before) as { item_id: string; version: string; platform: string }[];
  }


  /** Every upload row (the files on disk without one are strays of a crash). */
  uploads(): { item_id: string; version: string; platform: string }[] {
    return this.db.prepare('SELECT item_id, version, platform FROM registry_uploads').all() as { item_id: string; version: string; platform: string }[];
  }

  // --- apps ---

  /**
   * The app `name` of the organization holding `namespace`, as declared by the latest uploaded
   * version of the module that declares it, with that module's row.
   */
  app(namespace: string, name: string): { row: ItemRow; app: App; version: string } | undefined {
    const candidates = this.db
      .prepare(
        `SELECT r.id, v.version, v.apps FROM registry_items r JOIN organizations o ON o.id = r.organization_id
           JOIN registry_versions v ON v.item_id = r.id
          WHERE o.public_namespace = ? AND r.type = ${PackageType.PACKAGE_TYPE_MODULE}
            AND v.version_key = (SELECT max(version_key) FROM registry_versions WHERE item_id = r.id)`,
      )
      .all(namespace) as { id: string; version: string; apps: string }[];
    for (const c of candidates) {
      const app = (JSON.parse(c.apps) as App[]).find((a) => a.name === name);
      if (app) return { row: this.row(c.id), app, version: c.version };
    }
    return undefined;
  }
}
