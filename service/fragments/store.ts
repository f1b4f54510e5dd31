/**
 * Fragments, their revisions, tags and history (docs/PROTOCOL.md, "Fragments"). Every method reads the
 * database afresh; every write that touches more than one row is one IMMEDIATE transaction (a check
 * and the write it guards are one step against any other writer).
 */
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { isObject, parseFragments, versionKind, type JsonObject } from '../../fleetconfig';
import type { EditorInfo } from '../../proto/gen/fleet/app/v1/access';
import type { Fragment, FragmentHistoryEntry, FragmentRevision, FragmentTag } from '../../proto/gen/fleet/app/v1/fragments';
import { present } from '../errors';

/** A fragment as stored, with its organization's name. */
export interface FragmentRow {
  readonly id: string;
  readonly organization_id: string;
  readonly organization_name: string;
  readonly name: string;
  readonly visibility: number;
  /** The latest revision. */
  readonly revision: number;
  readonly created_on: string;
  readonly last_updated: string;
}

/** One revision as stored. */
export interface RevisionRow {
  readonly fragment_id: string;
  readonly revision: number;
  readonly name: string;
  readonly visibility: number;
  readonly config_json: string;
  readonly created_on: string;
  readonly editor_type: string;
  readonly editor_id: string;
  readonly editor_name: string;
}

/**
 * What names some fragments, as part configs' refs index can be asked: any version of `ids`, and each
 * (fragment, version) of `pairs` ('' for the latest). Shared in shape with the machines domain, which
 * counts and filters parts by it.
 */
export interface FragmentUses {
  readonly ids: readonly string[];
  readonly pairs: readonly { readonly fragmentId: string; readonly version: string }[];
}

/** How an update went: made, or refused as stale with the stored last_updated. */
export type FragmentUpdate = { readonly ok: true; readonly row: FragmentRow } | { readonly ok: false; readonly storedLastUpdated: Date };

const ROW = `SELECT f.id, f.organization_id, o.name AS organization_name, f.name, f.visibility, f.revision, f.created_on, f.last_updated
               FROM fragments f JOIN organizations o ON o.id = f.organization_id`;

/** A fragment's last_updated after a change at `now`: strictly later than the one before (as parts'). */
function nextUpdate(now: Date, previous: string): string {
  return new Date(Math.max(now.getTime(), Date.parse(previous) + 1)).toISOString();
}

export class FragmentStore {
  constructor(private readonly db: Database.Database) {}

  get(id: string): FragmentRow | undefined {
    return this.db.prepare(`${ROW} WHERE f.id = ?`).get(id) as FragmentRow | undefined;
  }

  /**
   * The revision `version` names (a revision number, a tag, or absent/empty for the latest), or
   * undefined when the fragment has no such revision or tag.
   */
  revisionOf(id: string, version: string | undefined): number | undefined {
    const kind = versionKind(version);
    switch (kind.kind) {
      case 'latest':
        return this.db.prepare('SELECT revision FROM fragments WHERE id = ?').pluck().get(id) as number | undefined;
      case 'revision':
        return this.db.prepare('SELECT revision FROM fragment_revisions WHERE fragment_id = ? AND revision = ?').pluck().get(id, kind.revision) as number | undefined;
      case 'tag':
        return this.db.prepare('SELECT revision FROM fragment_tags WHERE fragment_id = ? AND tag = ?').pluck().get(id, kind.tag) as number | undefined;
    }
  }

  revision(id: string, revision: number): RevisionRow | undefined {
    return this.db.prepare('SELECT * FROM fragment_revisions WHERE fragment_id = ? AND revision = ?').get(id, revision) as RevisionRow | undefined;
  }

  /** A new fragment at revision 1, made by `editor`. */
  create(orgId: string, name: string, configJson: string, visibility: number, editor: EditorInfo, options: { readonly verify?: () => void; readonly now?: Date } = {}): FragmentRow {
    const id = randomUUID();
    const at = (options.now ?? new Date()).toISOString();
    this.db
      .transaction(() => {
        options.verify?.();
        this.db.prepare('INSERT INTO fragments (id, organization_id, name, visibility, revision, created_on, last_updated) VALUES (?, ?, ?, ?, 1, ?, ?)').run(id, orgId, name, visibility, at, at);
        this.insertRevision(id, 1, name, visibility, configJson, at, editor);
      })
      .immediate();
    return present(this.get(id), `fragment ${id}`);
  }

  private insertRevision(id: string, revision: number, name: string, visibility: number, configJson: string, at: string, editor: EditorInfo): void {
    this.db
      .prepare(
        `INSERT INTO fragment_revisions (fragment_id, revision, name, visibility, config_json, created_on, editor_type, editor_id, editor_name)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(id, revision, name, visibility, configJson, at, editor.identityType, editor.identityId, editor.displayName);
    // What the revision nests, indexed for the walks of the fragment graph (usesOf, nestedIds).
    if (!configJson.includes('"fragments"')) return;
    const parsed: unknown = JSON.parse(configJson);
    if (!isObject(parsed)) return;
    const insert = this.db.prepare('INSERT INTO fragment_refs (fragment_id, revision, position, ref_id, ref_version) VALUES (?, ?, ?, ?, ?)');
    for (const ref of parseFragments(parsed).refs) insert.run(id, revision, ref.index, ref.id, ref.version ?? '');
  }

  /**
   * UpdateFragment's write: the next revision with the name, and the config and visibility given
   * (the latest revision's where absent). With `expected` earlier than the stored last_updated it
   * changes nothing and says so. `verify` runs inside the transaction before the write.
   */
  update(
    id: string,
    change: { readonly name: string; readonly configJson?: string; readonly visibility?: number },
    options: { readonly expected?: Date; readonly editor: EditorInfo; readonly verify?: () => void; readonly now?: Date },
  ): FragmentUpdate {
    return this.db
      .transaction((): FragmentUpdate => {
        const row = present(this.get(id), `fragment ${id}`);
        const stored = new Date(row.last_updated);
        if (options.expected !== undefined && options.expected.getTime() < stored.getTime()) return { ok: false, storedLastUpdated: stored };
        options.verify?.();
        const latest = present(this.revision(id, row.revision), `revision ${row.revision} of fragment ${id}`);
        const next = row.revision + 1;
        const at = nextUpdate(options.now ?? new Date(), row.last_updated);
        const visibility = change.visibility ?? row.visibility;
        this.insertRevision(id, next, change.name, visibility, change.configJson ?? latest.config_json, at, options.editor);
        this.db.prepare('UPDATE fragments SET name = ?, visibility = ?, revision = ?, last_updated = ? WHERE id = ?').run(change.name, visibility, next, at, id);
        return { ok: true, row: present(this.get(id), `fragment ${id}`) };
      })
      .immediate();
  }

  /** Delete a fragment with its revisions and tags (and its own organization's default-fragment entries, which cascade). `verify` checks it is unused, inside the transaction. */
  delete(id: string, verify: () => void): void {
    this.db
      .transaction(() => {
        verify();
        this.db.prepare('DELETE FROM fragments WHERE id = ?').run(id);
      })
      .immediate();
  }

  /** A page of an organization's fragments of the given visibilities, by name, after `after` ([name, id]). */
  list(orgId: string, visibilities: readonly number[], after: readonly (string | number)[] | undefined, size: number): FragmentRow[] {
    const [name, id] = after ?? [];
    return this.db
      .prepare(
        `${ROW} WHERE f.organization_id = @org AND f.visibility IN (SELECT value FROM json_each(@visibilities))
            AND (@name IS NULL OR (f.name, f.id) > (@name, @id)) ORDER BY f.name, f.id LIMIT @size`,
      )
      .all({ org: orgId, visibilities: JSON.stringify(visibilities), name: name ?? null, id: id ?? null, size }) as FragmentRow[];
  }

  /** Every revision of a fragment, oldest first. */
  revisions(id: string): FragmentRevision[] {
    const rows = this.db.prepare('SELECT revision, created_on FROM fragment_revisions WHERE fragment_id = ? ORDER BY revision').all(id) as { revision: number; created_on: string }[];
    return rows.map((r) => ({ revision: String(r.revision), createdOn: new Date(r.created_on) }));
  }

  /** A fragment's tags, by tag. */
  tags(id: string): FragmentTag[] {
    const rows = this.db.prepare('SELECT tag, revision, updated_on FROM fragment_tags WHERE fragment_id = ? ORDER BY tag').all(id) as { tag: string; revision: number; updated_on: string }[];
    return rows.map((r) => ({ tag: r.tag, revision: String(r.revision), updatedOn: new Date(r.updated_on) }));
  }

  /**
   * Set or move a tag to `revision` (undefined: the latest). Answers the revision it names, or
   * undefined when the fragment has no such revision (then nothing changed).
   */
  setTag(id: string, tag: string, revision: number | undefined, now = new Date()): number | undefined {
    return this.db
      .transaction(() => {
        const target = this.revisionOf(id, revision === undefined ? undefined : String(revision));
        if (target === undefined) return undefined;
        this.db
          .prepare('INSERT INTO fragment_tags (fragment_id, tag, revision, updated_on) VALUES (?, ?, ?, ?) ON CONFLICT (fragment_id, tag) DO UPDATE SET revision = excluded.revision, updated_on = excluded.updated_on')
          .run(id, tag, target, now.toISOString());
        return target;
      })
      .immediate();
  }

  /** Remove a tag; `verify` (inside the transaction) checks nothing asks for it. Answers whether it existed. */
  deleteTag(id: string, tag: string, verify: () => void): boolean {
    return this.db
      .transaction(() => {
        if (this.db.prepare('SELECT 1 FROM fragment_tags WHERE fragment_id = ? AND tag = ?').get(id, tag) === undefined) return false;
        verify();
        this.db.prepare('DELETE FROM fragment_tags WHERE fragment_id = ? AND tag = ?').run(id, tag);
        return true;
      })
      .immediate();
  }

  /**
   * A page of a fragment's history, newest first, before revision `before` (exclusive; undefined: from
   * the latest). One entry per revision: who made it and when, with the revision before as `old`
   * (absent for revision 1, the creation).
   */
  history(id: string, before: number | undefined, size: number): FragmentHistoryEntry[] {
    const rows = this.db
      .prepare('SELECT * FROM fragment_revisions WHERE fragment_id = @id AND (@before IS NULL OR revision < @before) ORDER BY revision DESC LIMIT @size')
      .all({ id, before: before ?? null, size: size + 1 }) as RevisionRow[];
    const row = present(this.get(id), `fragment ${id}`);
    return rows.slice(0, size).map((r, i) => {
      // The revision before is the next row, or (at a page's end) read on its own.
      const previous = r.revision === 1 ? undefined : (rows[i + 1] ?? this.revision(id, r.revision - 1));
      return {
        fragmentId: id,
        editedOn: new Date(r.created_on),
        old: previous === undefined ? undefined : this.snapshot(row, previous),
        editedBy: { identityType: r.editor_type, identityId: r.editor_id, displayName: r.editor_name },
        revision: String(r.revision),
      };
    });
  }

  /** The fragment as revision `r` made it: its name, config and visibility then, and when it was made. */
  snapshot(row: FragmentRow, r: RevisionRow): Fragment {
    return {
      id: row.id,
      name: r.name,
      config: JSON.parse(r.config_json) as JsonObject,
      organizationId: row.organization_id,
      organizationName: row.organization_name,
      visibility: r.visibility,
      createdOn: new Date(row.created_on),
      lastUpdated: new Date(r.created_on),
      revision: String(r.revision),
      robotPartCount: 0,
      revisions: [],
      tags: [],
    };
  }

  /**
   * What names any of `ids`, directly or through other fragments: the ids themselves (at any version),
   * and every (fragment, version) that resolves to a revision nesting one of them, however deep. Walks
   * the fragment graph up from `ids` one level per step, each (fragment, revision) once, so it ends
   * whatever the graph (a cycle stored before it was refused included).
   */
  usesOf(ids: readonly string[]): FragmentUses {
    const users = new Map<string, Set<number>>();
    const pending: { id: string; revision: number }[] = [];
    const add = (rows: readonly { fragment_id: string; revision: number }[]) => {
      for (const r of rows) {
        const seen = users.get(r.fragment_id) ?? new Set<number>();
        if (seen.has(r.revision)) continue;
        seen.add(r.revision);
        users.set(r.fragment_id, seen);
        pending.push({ id: r.fragment_id, revision: r.revision });
      }
    };
    const direct = this.db.prepare('SELECT fragment_id, revision FROM fragment_refs WHERE ref_id IN (SELECT value FROM json_each(?))');
    const through = this.db.prepare('SELECT fragment_id, revision FROM fragment_refs WHERE ref_id = ? AND ref_version IN (SELECT value FROM json_each(?))');
    add(direct.all(JSON.stringify(ids)) as { fragment_id: string; revision: number }[]);
    const pairs: { fragmentId: string; version: string }[] = [];
    for (let next = pending.shift(); next !== undefined; next = pending.shift()) {
      const versions = this.versionsNaming(next.id, next.revision);
      for (const version of versions) pairs.push({ fragmentId: next.id, version });
      add(through.all(next.id, JSON.stringify(versions)) as { fragment_id: string; revision: number }[]);
    }
    return { ids, pairs };
  }

  /** The versions a config can write that resolve to `revision` of fragment `id`: '' when it is the latest, the revision number, and its tags. */
  versionsNaming(id: string, revision: number): string[] {
    const latest = this.db.prepare('SELECT revision FROM fragments WHERE id = ?').pluck().get(id) as number | undefined;
    const tags = this.db.prepare('SELECT tag FROM fragment_tags WHERE fragment_id = ? AND revision = ?').pluck().all(id, revision) as string[];
    return [...(latest === revision ? [''] : []), String(revision), ...tags];
  }

  /**
   * The fragments (other than `id`) whose latest or tagged revisions name fragment `id` — at `version`
   * when given (a tag), at any version otherwise: what would stop resolving without it.
   */
  fragmentsNaming(id: string, version?: string): string[] {
    return this.db
      .prepare(
        `SELECT DISTINCT f.name || ' (' || f.id || ')' FROM fragment_refs r JOIN fragments f ON f.id = r.fragment_id
          WHERE r.ref_id = @id AND (@version IS NULL OR r.ref_version = @version) AND r.fragment_id <> @id
            AND (r.revision = f.revision OR EXISTS (SELECT 1 FROM fragment_tags t WHERE t.fragment_id = r.fragment_id AND t.revision = r.revision))
          ORDER BY 1`,
      )
      .pluck()
      .all({ id, version: version ?? null }) as string[];
  }

  /**
   * The ids of the fragments fragment `id` at `version` ('' for the latest) nests, at any depth (each
   * once; none when it or the version is unknown). Each (fragment, revision) is read once, so a
   * cycle stored before it could be refused ends too.
   */
  nestedIds(id: string, version: string): string[] {
    const out = new Set<string>();
    const seen = new Set<string>();
    const pending: { id: string; version: string }[] = [{ id, version }];
    for (let next = pending.shift(); next !== undefined; next = pending.shift()) {
      const at = this.refsAt(next.id, next.version === '' ? undefined : next.version);
      if (at === undefined) continue;
      const key = `${next.id}\u0000${at.revision}`;
      if (seen.has(key)) continue;
      seen.add(key);
      for (const ref of at.refs) {
        if (ref.id !== id) out.add(ref.id);
        pending.push(ref);
      }
    }
    return [...out];
  }

  /**
   * The direct refs of a fragment at a version, and the revision it resolved to; undefined when the
   * fragment or the version is unknown.
   */
  refsAt(id: string, version: string | undefined): { revision: number; refs: { id: string; version: string }[] } | undefined {
    const revision = this.revisionOf(id, version);
    if (revision === undefined) return undefined;
    const refs = this.db.prepare('SELECT ref_id AS id, ref_version AS version FROM fragment_refs WHERE fragment_id = ? AND revision = ? ORDER BY position').all(id, revision) as { id: string; version: string }[];
    return { revision, refs };
  }
}
