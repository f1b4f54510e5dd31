// One block per schema step: it applies on top of the steps before it, its tables are STRICT and
// have the columns the stores use, and its constraints refuse what they are there to refuse.
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, userVersion } from '../../../db/migrate';
import { serviceMigrations } from '.';
import { keysAndSecrets } from './0015_keys_and_secrets';

const open: Database.Database[] = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

/** A database migrated up to and including `version`. */
function migratedTo(version: number): Database.Database {
  const db = new Database(':memory:');
  open.push(db);
  db.pragma('foreign_keys = ON');
  migrate(db, serviceMigrations.slice(0, version));
  return db;
}

function columns(db: Database.Database, table: string): Record<string, string> {
  const rows = db.pragma(`table_xinfo(${table})`) as { name: string; type: string; notnull: number; pk: number }[];
  return Object.fromEntries(rows.map((c) => [c.name, `${c.type}${c.notnull ? ' NOT NULL' : ''}${c.pk ? ' PK' : ''}`]));
}

function isStrict(db: Database.Database, table: string): boolean {
  return (db.pragma(`table_list(${table})`) as { strict: number }[])[0]?.strict === 1;
}

const NOW = '2025-01-01T00:00:00.000Z';
const KEY = '11111111-1111-4111-8111-111111111111';
const ORG = '22222222-2222-4222-8222-222222222222';

it('numbers the steps 1, 2, 3… and applies them all', () => {
  const db = migratedTo(serviceMigrations.length);
  expect(serviceMigrations.map((m) => m.version)).toEqual(serviceMigrations.map((_, i) => i + 1));
  expect(userVersion(db)).toBe(serviceMigrations.length);
});

describe('0001 token_signing_secret', () => {
  it('creates one STRICT table', () => {
    const db = migratedTo(1);
    expect(isStrict(db, 'token_signing_secret')).toBe(true);
    expect(columns(db, 'token_signing_secret')).toEqual({ id: 'INTEGER PK', secret: 'BLOB NOT NULL', created_at: 'TEXT NOT NULL' });
  });

  it('holds a single secret of at least 32 bytes', () => {
    const db = migratedTo(1);
    const insert = db.prepare('INSERT INTO token_signing_secret (id, secret, created_at) VALUES (?, ?, ?)');
    expect(() => insert.run(1, Buffer.alloc(31), NOW)).toThrow(/CHECK/);
    insert.run(1, Buffer.alloc(32), NOW);
    expect(() => insert.run(2, Buffer.alloc(32), NOW)).toThrow(/CHECK/);
    expect(() => insert.run(1, Buffer.alloc(32), NOW)).toThrow(/UNIQUE|PRIMARY/);
    expect(() => insert.run(1, 'not a blob but text of more than 32 chars....', NOW)).toThrow();
  });
});

describe('0002 api_keys', () => {
  const insert = (db: Database.Database, overrides: Record<string, unknown> = {}) =>
    db
      .prepare('INSERT INTO api_keys (id, name, hash_scheme, salt, hash, created_at, deleted_at) VALUES (@id, @name, @hash_scheme, @salt, @hash, @created_at, @deleted_at)')
      .run({ id: KEY, name: 'k', hash_scheme: 'scrypt', salt: Buffer.alloc(16), hash: Buffer.alloc(32), created_at: NOW, deleted_at: null, ...overrides });

  it('creates a STRICT table with the columns the key store uses', () => {
    const db = migratedTo(2);
    expect(isStrict(db, 'api_keys')).toBe(true);
    expect(columns(db, 'api_keys')).toEqual({
      id: 'TEXT NOT NULL PK',
      name: 'TEXT NOT NULL',
      hash_scheme: 'TEXT NOT NULL',
      salt: 'BLOB NOT NULL',
      hash: 'BLOB NOT NULL',
      created_at: 'TEXT NOT NULL',
      deleted_at: 'TEXT',
    });
  });

  it('refuses ids that are no UUID, short salts and hashes, and deletion before creation', () => {
    const db = migratedTo(2);
    expect(() => insert(db, { id: 'short' })).toThrow(/CHECK/);
    expect(() => insert(db, { salt: Buffer.alloc(8) })).toThrow(/CHECK/);
    expect(() => insert(db, { hash: Buffer.alloc(16) })).toThrow(/CHECK/);
    expect(() => insert(db, { hash_scheme: '' })).toThrow(/CHECK/);
    expect(() => insert(db, { deleted_at: '2024-01-01T00:00:00.000Z' })).toThrow(/CHECK/);
    expect(() => insert(db, { hash: 'text, not bytes, but long enough to pass the length check' })).toThrow(/cannot store TEXT value in BLOB column/);
    insert(db);
    expect(() => insert(db)).toThrow(/UNIQUE|PRIMARY/);
  });
});

describe('0003 organizations', () => {
  const insertOrg = (db: Database.Database, overrides: Record<string, unknown> = {}) =>
    db
      .prepare('INSERT INTO organizations (id, name, created_on, public_namespace) VALUES (@id, @name, @created_on, @public_namespace)')
      .run({ id: ORG, name: 'Acme', created_on: NOW, public_namespace: null, ...overrides });
  const grant = (db: Database.Database, overrides: Record<string, unknown> = {}) =>
    db
      .prepare(
        `INSERT INTO authorizations (authorization_type, authorization_id, resource_type, resource_id, identity_id, identity_type, organization_id, role_id, created_at)
         VALUES (@authorization_type, @authorization_id, @resource_type, @resource_id, @identity_id, @identity_type, @organization_id, @role_id, @created_at)`,
      )
      .run({
        authorization_type: 'role',
        authorization_id: 'organization_owner',
        resource_type: 'organization',
        resource_id: ORG,
        identity_id: KEY,
        identity_type: '',
        organization_id: ORG,
        role_id: 'owner',
        created_at: NOW,
        ...overrides,
      });

  it('creates STRICT tables with the columns the organization store uses, and the visibility index', () => {
    const db = migratedTo(3);
    expect(isStrict(db, 'organizations')).toBe(true);
    expect(isStrict(db, 'authorizations')).toBe(true);
    expect(columns(db, 'organizations')).toEqual({
      id: 'TEXT NOT NULL PK',
      name: 'TEXT NOT NULL',
      created_on: 'TEXT NOT NULL',
      public_namespace: 'TEXT',
      region: 'TEXT NOT NULL',
      cid: 'TEXT NOT NULL',
    });
    expect(columns(db, 'authorizations')).toEqual({
      id: 'INTEGER PK',
      authorization_type: 'TEXT NOT NULL',
      authorization_id: 'TEXT NOT NULL',
      resource_type: 'TEXT NOT NULL',
      resource_id: 'TEXT NOT NULL',
      identity_id: 'TEXT NOT NULL',
      identity_type: 'TEXT NOT NULL',
      organization_id: 'TEXT NOT NULL',
      role_id: 'TEXT NOT NULL',
      created_at: 'TEXT NOT NULL',
    });
    const plan = db
      .prepare("EXPLAIN QUERY PLAN SELECT organization_id FROM authorizations WHERE identity_type = '' AND identity_id = ?")
      .all(KEY) as { detail: string }[];
    expect(plan.map((p) => p.detail).join()).toMatch(/authorizations_by_identity/);
  });

  it('keeps organization names trimmed and 1 to 200 characters, and namespaces as PROTOCOL.md says, and unique', () => {
    const db = migratedTo(3);
    expect(() => insertOrg(db, { name: '' })).toThrow(/CHECK/);
    expect(() => insertOrg(db, { name: ' Acme' })).toThrow(/CHECK/);
    expect(() => insertOrg(db, { name: 'ü'.repeat(201) })).toThrow(/CHECK/);
    expect(() => insertOrg(db, { public_namespace: 'Acme' })).toThrow(/CHECK/);
    expect(() => insertOrg(db, { public_namespace: 'acme_co' })).toThrow(/CHECK/);
    expect(() => insertOrg(db, { public_namespace: '' })).toThrow(/CHECK/);
    expect(() => insertOrg(db, { public_namespace: '-acme' })).toThrow(/CHECK/);
    expect(() => insertOrg(db, { public_namespace: 'acme-' })).toThrow(/CHECK/);
    expect(() => insertOrg(db, { public_namespace: 'a'.repeat(64) })).toThrow(/CHECK/);
    insertOrg(db, { name: 'ü'.repeat(200), public_namespace: `acme-co-2${'x'.repeat(54)}` });
    expect(() => insertOrg(db, { id: ORG.replace('2222-4', '3333-4'), public_namespace: `acme-co-2${'x'.repeat(54)}` })).toThrow(/UNIQUE/);
    expect(db.prepare('SELECT region, cid FROM organizations').get()).toEqual({ region: '', cid: '' });
  });

  it('keeps authorizations in the spec\'s shape', () => {
    const db = migratedTo(3);
    insertOrg(db);
    expect(() => grant(db, { authorization_type: 'group' })).toThrow(/CHECK/);
    expect(() => grant(db, { authorization_id: 'organization_operator' })).toThrow(/CHECK/);
    expect(() => grant(db, { resource_type: 'fleet', authorization_id: 'fleet_owner' })).toThrow(/CHECK/);
    expect(() => grant(db, { role_id: 'admin', authorization_id: 'organization_admin' })).toThrow(/CHECK/);
    expect(() => grant(db, { identity_type: 'robot' })).toThrow(/CHECK/);
    expect(() => grant(db, { identity_id: '' })).toThrow(/CHECK/);
    expect(() => grant(db, { resource_id: 'some-other-org' })).toThrow(/CHECK/);
    grant(db);
    expect(() => grant(db)).toThrow(/UNIQUE/);
    grant(db, { resource_type: 'location', resource_id: 'loc-1', authorization_id: 'location_operator', role_id: 'operator', identity_type: 'user', identity_id: 'user-1' });
  });

  it('ties authorizations to an existing organization and drops them with it', () => {
    const db = migratedTo(3);
    expect(() => grant(db)).toThrow(/FOREIGN KEY/);
    insertOrg(db);
    grant(db);
    db.prepare('DELETE FROM organizations WHERE id = ?').run(ORG);
    expect(db.prepare('SELECT count(*) AS n FROM authorizations').get()).toEqual({ n: 0 });
  });
});

describe('0004 api_key_hash_secret', () => {
  it('creates one STRICT table holding a single secret of at least 32 bytes', () => {
    const db = migratedTo(4);
    expect(isStrict(db, 'api_key_hash_secret')).toBe(true);
    expect(columns(db, 'api_key_hash_secret')).toEqual({ id: 'INTEGER PK', secret: 'BLOB NOT NULL', created_at: 'TEXT NOT NULL' });
    const insert = db.prepare('INSERT INTO api_key_hash_secret (id, secret, created_at) VALUES (?, ?, ?)');
    expect(() => insert.run(1, Buffer.alloc(31), NOW)).toThrow(/CHECK/);
    expect(() => insert.run(2, Buffer.alloc(32), NOW)).toThrow(/CHECK/);
    insert.run(1, Buffer.alloc(32), NOW);
    expect(() => insert.run(1, Buffer.alloc(32), NOW)).toThrow(/UNIQUE|PRIMARY/);
  });

  it('applies on top of a database that already holds keys, leaving them as they were', () => {
    const db = migratedTo(3);
    db.prepare('INSERT INTO api_keys (id, name, hash_scheme, salt, hash, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(KEY, 'k', 'scrypt-n16384-r8-p1-32', Buffer.alloc(16, 1), Buffer.alloc(32, 2), NOW);
    migrate(db, serviceMigrations.slice(0, 4));
    expect(db.prepare('SELECT hash_scheme FROM api_keys').get()).toEqual({ hash_scheme: 'scrypt-n16384-r8-p1-32' });
  });
});

describe('0005 locations', () => {
  const LOC = '33333333-3333-4333-8333-333333333333';
  const CHILD = '44444444-4444-4444-8444-444444444444';
  const org = (db: Database.Database, id = ORG) => db.prepare('INSERT INTO organizations (id, name, created_on) VALUES (?, ?, ?)').run(id, 'Acme', NOW);
  const loc = (db: Database.Database, overrides: Record<string, unknown> = {}) =>
    db
      .prepare('INSERT INTO locations (id, organization_id, parent_location_id, name, created_on) VALUES (@id, @org, @parent, @name, @created_on)')
      .run({ id: LOC, org: ORG, parent: null, name: 'Site', created_on: NOW, ...overrides });

  it('creates STRICT tables for locations and shares, and adds metadata to organizations', () => {
    const db = migratedTo(5);
    expect(isStrict(db, 'locations')).toBe(true);
    expect(isStrict(db, 'location_shares')).toBe(true);
    expect(columns(db, 'locations')).toEqual({
      id: 'TEXT NOT NULL PK',
      organization_id: 'TEXT NOT NULL',
      parent_location_id: 'TEXT',
      name: 'TEXT NOT NULL',
      region: 'TEXT NOT NULL',
      created_on: 'TEXT NOT NULL',
      metadata: 'TEXT NOT NULL',
    });
    expect(columns(db, 'organizations')).toHaveProperty('metadata', 'TEXT NOT NULL');
  });

  it('keeps names trimmed, metadata a JSON object, a location out of its own parenthood, and shares unique', () => {
    const db = migratedTo(5);
    org(db);
    expect(() => loc(db, { name: ' Site' })).toThrow(/CHECK/);
    expect(() => loc(db, { parent: LOC })).toThrow(/CHECK|FOREIGN KEY/);
    loc(db);
    expect(() => db.prepare("UPDATE locations SET metadata = '[1]' WHERE id = ?").run(LOC)).toThrow(/CHECK/);
    expect(() => db.prepare("UPDATE organizations SET metadata = 'not json' WHERE id = ?").run(ORG)).toThrow(/CHECK/);
    const share = db.prepare('INSERT INTO location_shares (location_id, organization_id, created_at) VALUES (?, ?, ?)');
    share.run(LOC, ORG, NOW);
    expect(() => share.run(LOC, ORG, NOW)).toThrow(/UNIQUE/);
  });

  it('removes a whole tree and its shares with its organization', () => {
    const db = migratedTo(5);
    org(db);
    loc(db);
    loc(db, { id: CHILD, parent: LOC, name: 'Floor' });
    db.prepare('INSERT INTO location_shares (location_id, organization_id, created_at) VALUES (?, ?, ?)').run(CHILD, ORG, NOW);
    db.prepare('DELETE FROM organizations WHERE id = ?').run(ORG);
    expect(db.prepare('SELECT count(*) FROM locations').pluck().get()).toBe(0);
    expect(db.prepare('SELECT count(*) FROM location_shares').pluck().get()).toBe(0);
  });
});

describe('0006 machines', () => {
  const LOC = '33333333-3333-4333-8333-333333333333';
  const ROBOT = '55555555-5555-4555-8555-555555555555';
  const part = (db: Database.Database, id: string, overrides: Record<string, unknown> = {}) =>
    db
      .prepare(
        `INSERT INTO robot_parts (id, robot_id, location_id, name, main_part, fqdn, created_on, last_updated)
         VALUES (@id, @robot, @loc, @name, @main, 'x.fleet.internal', @now, @now)`,
      )
      .run({ id, robot: ROBOT, loc: LOC, name: `p-${id.slice(0, 4)}`, main: 0, now: NOW, ...overrides });
  function fleet(): Database.Database {
    const db = migratedTo(6);
    db.prepare('INSERT INTO organizations (id, name, created_on) VALUES (?, ?, ?)').run(ORG, 'Acme', NOW);
    db.prepare('INSERT INTO locations (id, organization_id, name, created_on) VALUES (?, ?, ?, ?)').run(LOC, ORG, 'Site', NOW);
    db.prepare('INSERT INTO robots (id, location_id, name, created_on) VALUES (?, ?, ?, ?)').run(ROBOT, LOC, 'bot', NOW);
    return db;
  }

  it('creates STRICT tables for machines, parts, part secrets and the simulation', () => {
    const db = migratedTo(6);
    for (const table of ['robots', 'robot_parts', 'part_secrets', 'part_simulation']) expect(isStrict(db, table), table).toBe(true);
    expect(Object.keys(columns(db, 'robot_parts'))).toEqual([
      'id', 'robot_id', 'location_id', 'name', 'main_part', 'config_json', 'fqdn', 'local_fqdn', 'last_access', 'marked_for_restart', 'created_on', 'last_updated', 'metadata',
    ]);
  });

  it('keeps machine and part names unique within a location, one main part per machine, configs JSON objects', () => {
    const db = fleet();
    expect(() => db.prepare('INSERT INTO robots (id, location_id, name, created_on) VALUES (?, ?, ?, ?)').run(KEY, LOC, 'bot', NOW)).toThrow(/UNIQUE/);
    part(db, '66666666-6666-4666-8666-666666666666', { main: 1, name: 'bot-main' });
    expect(() => part(db, '77777777-7777-4777-8777-777777777777', { main: 1 })).toThrow(/UNIQUE/);
    expect(() => part(db, '77777777-7777-4777-8777-777777777777', { name: 'bot-main' })).toThrow(/UNIQUE/);
    part(db, '77777777-7777-4777-8777-777777777777');
    expect(() => db.prepare("UPDATE robot_parts SET config_json = '[]'").run()).toThrow(/CHECK/);
    expect(() => db.prepare("INSERT INTO part_simulation (part_id, pattern, interval_s, period_s, phase_s) VALUES (?, 'sometimes', 1, 1, 0)").run('66666666-6666-4666-8666-666666666666')).toThrow(/CHECK/);
  });

  it('removes parts, their secrets and simulation with their machine', () => {
    const db = fleet();
    const id = '66666666-6666-4666-8666-666666666666';
    part(db, id, { main: 1 });
    db.prepare('INSERT INTO part_secrets (id, part_id, secret, created_on) VALUES (?, ?, ?, ?)').run('88888888-8888-4888-8888-888888888888', id, 's3cret', NOW);
    db.prepare("INSERT INTO part_simulation (part_id, pattern, interval_s, period_s, phase_s) VALUES (?, 'steady', 2, 1, 0)").run(id);
    db.prepare('DELETE FROM robots WHERE id = ?').run(ROBOT);
    for (const table of ['robot_parts', 'part_secrets', 'part_simulation']) expect(db.prepare(`SELECT count(*) FROM ${table}`).pluck().get(), table).toBe(0);
  });
});

describe('0007 logs', () => {
  const LOC = '33333333-3333-4333-8333-333333333333';
  const ROBOT = '44444444-4444-4444-8444-444444444444';
  const PART = '55555555-5555-4555-8555-555555555555';
  function withPart(): Database.Database {
    const db = migratedTo(7);
    db.prepare('INSERT INTO organizations (id, name, created_on) VALUES (?, ?, ?)').run(ORG, 'Acme', NOW);
    db.prepare('INSERT INTO locations (id, organization_id, name, created_on) VALUES (?, ?, ?, ?)').run(LOC, ORG, 'Site', NOW);
    db.prepare('INSERT INTO robots (id, location_id, name, created_on) VALUES (?, ?, ?, ?)').run(ROBOT, LOC, 'bot', NOW);
    db.prepare("INSERT INTO robot_parts (id, robot_id, location_id, name, main_part, fqdn, created_on, last_updated) VALUES (?, ?, ?, 'bot-main', 1, 'x', ?, ?)").run(PART, ROBOT, LOC, NOW, NOW);
    return db;
  }
  const entry = (db: Database.Database, overrides: Record<string, unknown> = {}) =>
    db.prepare("INSERT INTO part_logs (part_id, time_us, level, message, caller, fields) VALUES (@part, 1, @level, 'm', @caller, @fields)").run({ part: PART, level: 'INFO', caller: null, fields: '[]', ...overrides });

  it('creates a STRICT log table and a log rate on the simulation, which existing rows get as 0', () => {
    const db = withPart();
    expect(isStrict(db, 'part_logs')).toBe(true);
    expect(Object.keys(columns(db, 'part_logs'))).toEqual(['id', 'part_id', 'time_us', 'level', 'source', 'host', 'message', 'caller', 'stack', 'fields']);
    db.prepare("INSERT INTO part_simulation (part_id, pattern, interval_s, period_s, phase_s) VALUES (?, 'steady', 2, 1, 0)").run(PART);
    expect(db.prepare('SELECT log_per_min FROM part_simulation').pluck().get()).toBe(0);
  });

  it("refuses unknown levels, a caller that is no object, fields that are no array; removes a part's logs with it", () => {
    const db = withPart();
    entry(db);
    expect(() => entry(db, { level: 'info' })).toThrow(/CHECK/);
    expect(() => entry(db, { caller: '[1]' })).toThrow(/CHECK/);
    expect(() => entry(db, { fields: '{}' })).toThrow(/CHECK/);
    db.prepare("INSERT INTO part_simulation (part_id, pattern, interval_s, period_s, phase_s, log_per_min) VALUES (?, 'steady', 2, 1, 0, 30)").run(PART);
    expect(() => db.prepare('UPDATE part_simulation SET log_per_min = -1').run()).toThrow(/CHECK/);
    db.prepare('DELETE FROM robot_parts WHERE id = ?').run(PART);
    expect(db.prepare('SELECT count(*) FROM part_logs').pluck().get()).toBe(0);
  });
});


describe('0008 log_counts', () => {
  const LOC = '33333333-3333-4333-8333-333333333333';
  const ROBOT = '44444444-4444-4444-8444-444444444444';
  const PART = '55555555-5555-4555-8555-555555555555';
  it("counts each part's entries from what it held before, through inserts, deletes and the part's deletion", () => {
    const db = migratedTo(7);
    db.prepare('INSERT INTO organizations (id, name, created_on) VALUES (?, ?, ?)').run(ORG, 'Acme', NOW);
    db.prepare('INSERT INTO locations (id, organization_id, name, created_on) VALUES (?, ?, ?, ?)').run(LOC, ORG, 'Site', NOW);
    db.prepare('INSERT INTO robots (id, location_id, name, created_on) VALUES (?, ?, ?, ?)').run(ROBOT, LOC, 'bot', NOW);
    db.prepare("INSERT INTO robot_parts (id, robot_id, location_id, name, main_part, fqdn, created_on, last_updated) VALUES (?, ?, ?, 'bot-main', 1, 'x', ?, ?)").run(PART, ROBOT, LOC, NOW, NOW);
    const entry = db.prepare("INSERT INTO part_logs (part_id, time_us, level, message) VALUES (?, 1, 'INFO', 'm')");
    entry.run(PART);
    entry.run(PART);
    migrate(db, serviceMigrations.slice(0, 8));
    expect(isStrict(db, 'part_log_counts')).toBe(true);
    const n = () => db.prepare('SELECT n FROM part_log_counts WHERE part_id = ?').pluck().get(PART);
    expect(n()).toBe(2);
    entry.run(PART);
    db.prepare('DELETE FROM part_logs WHERE id = (SELECT min(id) FROM part_logs)').run();
    expect(n()).toBe(2);
    db.prepare('DELETE FROM robot_parts WHERE id = ?').run(PART);
    expect(db.prepare('SELECT count(*) FROM part_log_counts').pluck().get()).toBe(0);
  });
});

describe('0009 registry', () => {
  const ITEM = '99999999-9999-4999-8999-999999999999';
  function withOrg(): Database.Database {
    const db = migratedTo(9);
    db.prepare('INSERT INTO organizations (id, name, created_on) VALUES (?, ?, ?)').run(ORG, 'Acme', NOW);
    return db;
  }
  const item = (db: Database.Database, overrides: Record<string, unknown> = {}) =>
    db
      .prepare('INSERT INTO registry_items (id, organization_id, name, type, visibility, models, apps, created_at, updated_at) VALUES (@id, @org, @name, @type, @visibility, @models, @apps, @now, @now)')
      .run({ id: ITEM, org: ORG, name: 'lidar', type: 2, visibility: 1, models: '[]', apps: '[]', now: NOW, ...overrides });
  const version = (db: Database.Database, v = '1.0.0') => db.prepare("INSERT INTO registry_versions (item_id, version, version_key, uploaded_at) VALUES (?, ?, 'k', ?)").run(ITEM, v, NOW);
  const file = (db: Database.Database, overrides: Record<string, unknown> = {}) =>
    db
      .prepare('INSERT INTO registry_files (item_id, version, platform, size_bytes, sha256, uploaded_at) VALUES (@item, @version, @platform, @size, @sha, @now)')
      .run({ item: ITEM, version: '1.0.0', platform: 'linux/arm64', size: 10, sha: 'a'.repeat(64), now: NOW, ...overrides });

  it('creates four STRICT tables with the columns the store uses', () => {
    const db = withOrg();
    for (const table of ['registry_items', 'registry_versions', 'registry_files', 'registry_uploads']) expect(isStrict(db, table), table).toBe(true);
    expect(Object.keys(columns(db, 'registry_items'))).toEqual(['id', 'organization_id', 'name', 'type', 'visibility', 'description', 'url', 'markdown', 'entrypoint', 'models', 'apps', 'first_run', 'created_at', 'updated_at']);
    expect(Object.keys(columns(db, 'registry_files'))).toEqual(['item_id', 'version', 'platform', 'size_bytes', 'sha256', 'uploaded_at']);
    expect(Object.keys(columns(db, 'registry_uploads'))).toEqual(['item_id', 'version', 'platform', 'committed', 'started_at', 'updated_at']);
  });

  it('refuses bad names, types, visibilities, manifests, versions, platforms, sizes and hashes, and a second item of the same name', () => {
    const db = withOrg();
    expect(() => item(db, { name: 'Caps' })).toThrow(/CHECK/);
    expect(() => item(db, { name: '_under' })).toThrow(/CHECK/);
    expect(() => item(db, { type: 4 })).toThrow(/CHECK/);
    expect(() => item(db, { visibility: 0 })).toThrow(/CHECK/);
    expect(() => item(db, { models: '{}' })).toThrow(/CHECK/);
    item(db);
    expect(() => item(db, { id: '99999999-9999-4999-8999-999999999998' })).toThrow(/UNIQUE/);
    expect(() => version(db, 'v1')).toThrow(/CHECK/);
    version(db);
    expect(() => file(db, { platform: 'linux' })).toThrow(/CHECK/);
    expect(() => file(db, { size: 0 })).toThrow(/CHECK/);
    expect(() => file(db, { sha: 'G'.repeat(64) })).toThrow(/CHECK/);
    expect(() => file(db, { version: '2.0.0' })).toThrow(/FOREIGN KEY/);
    file(db);
  });

  it("removes an item's versions, files and held uploads with it, and its items with the organization", () => {
    const db = withOrg();
    item(db);
    version(db);
    file(db);
    db.prepare("INSERT INTO registry_uploads (item_id, version, platform, committed, started_at, updated_at) VALUES (?, '2.0.0', 'linux/any', 5, ?, ?)").run(ITEM, NOW, NOW);
    db.prepare('DELETE FROM organizations WHERE id = ?').run(ORG);
    for (const table of ['registry_items', 'registry_versions', 'registry_files', 'registry_uploads']) expect(db.prepare(`SELECT count(*) FROM ${table}`).pluck().get(), table).toBe(0);
  });
});

describe('0010 training', () => {
  const ITEM = '99999999-9999-4999-8999-999999999999';
  const JOB = '77777777-7777-4777-8777-777777777777';
  /** A registry at 0009 with an item, two versions and their files; then migrated to 0010. */
  function upgraded(): Database.Database {
    const db = migratedTo(9);
    db.prepare('INSERT INTO organizations (id, name, created_on) VALUES (?, ?, ?)').run(ORG, 'Acme', NOW);
    db.prepare("INSERT INTO registry_items (id, organization_id, name, type, created_at, updated_at) VALUES (?, ?, 'lidar', 2, ?, ?)").run(ITEM, ORG, NOW, NOW);
    for (const v of ['1.0.0', '1.10.0']) {
      db.prepare("INSERT INTO registry_versions (item_id, version, version_key, entrypoint, models, apps, uploaded_at) VALUES (?, ?, ?, 'run', '[]', '[]', ?)").run(ITEM, v, `k${v}`, NOW);
      db.prepare("INSERT INTO registry_files (item_id, version, platform, size_bytes, sha256, uploaded_at) VALUES (?, ?, 'linux/arm64', 10, ?, ?)").run(ITEM, v, 'a'.repeat(64), NOW);
    }
    migrate(db, serviceMigrations.slice(0, 10));
    return db;
  }
  const job = (db: Database.Database, overrides: Record<string, unknown> = {}) =>
    db
      .prepare(
        `INSERT INTO training_jobs (id, organization_id, dataset_id, model_name, model_version, model_type, tags, is_custom, registry_item_id, status, error_code, created_on, last_modified)
         VALUES (@id, @org, 'ds', @name, @version, 3, '["pallet"]', @custom, @script, @status, @code, @now, @now)`,
      )
      .run({ id: JOB, org: ORG, name: 'pallets', version: '1', custom: 0, script: '', status: 1, code: null, now: NOW, ...overrides });

  it('rebuilds registry versions and files keeping every row and the foreign keys between them, with free version labels', () => {
    const db = upgraded();
    expect(db.pragma('foreign_key_check')).toEqual([]);
    for (const table of ['registry_versions', 'registry_files']) expect(isStrict(db, table), table).toBe(true);
    expect(db.prepare('SELECT version, version_key, entrypoint FROM registry_versions ORDER BY version').all()).toEqual([
      { version: '1.0.0', version_key: 'k1.0.0', entrypoint: 'run' },
      { version: '1.10.0', version_key: 'k1.10.0', entrypoint: 'run' },
    ]);
    expect(db.prepare('SELECT count(*) FROM registry_files').pluck().get()).toBe(2);
    expect(db.prepare("SELECT sql FROM sqlite_schema WHERE name = 'registry_files'").pluck().get()).toMatch(/REFERENCES "?registry_versions"? /);
    expect(db.prepare("SELECT count(*) FROM sqlite_schema WHERE name LIKE '%_v2'").pluck().get()).toBe(0);
    const plan = db.prepare('EXPLAIN QUERY PLAN SELECT version FROM registry_versions WHERE item_id = ? ORDER BY version_key').all(ITEM) as { detail: string }[];
    expect(plan.map((p) => p.detail).join()).toMatch(/registry_versions_in_order/);
    const version = db.prepare("INSERT INTO registry_versions (item_id, version, version_key, uploaded_at) VALUES (?, ?, 'k', ?)");
    for (const v of ['1', '2026-11-25', 'rc_2', 'A'.repeat(64)]) version.run(ITEM, v, NOW);
    for (const v of ['', '-1', '.1', 'a b', 'v1/2', 'A'.repeat(65)]) expect(() => version.run(ITEM, v, NOW), v).toThrow(/CHECK/);
    expect(() => db.prepare("INSERT INTO registry_files (item_id, version, platform, size_bytes, sha256, uploaded_at) VALUES (?, '9.9.9', 'linux/any', 1, ?, ?)").run(ITEM, 'b'.repeat(64), NOW)).toThrow(/FOREIGN KEY/);
    db.prepare('DELETE FROM registry_items WHERE id = ?').run(ITEM);
    for (const table of ['registry_versions', 'registry_files']) expect(db.prepare(`SELECT count(*) FROM ${table}`).pluck().get(), table).toBe(0);
  });

  it('creates STRICT tables for datasets, jobs and the model-version ledger, indexed for listing by organization newest first and by status', () => {
    const db = upgraded();
    for (const table of ['training_datasets', 'training_jobs', 'training_model_versions']) expect(isStrict(db, table), table).toBe(true);
    expect(Object.keys(columns(db, 'training_jobs'))).toEqual([
      'id', 'organization_id', 'dataset_id', 'model_name', 'model_version', 'model_type', 'tags', 'is_custom', 'script_item_id', 'registry_item_id', 'registry_item_version',
      'status', 'error_code', 'error_message', 'progress_percent', 'created_on', 'last_modified', 'training_started', 'training_ended', 'cancel_requested', 'synced_model_id',
    ]);
    const plan = (sql: string) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((p) => p.detail).join();
    expect(plan(`SELECT id FROM training_jobs WHERE organization_id = '${ORG}' ORDER BY created_on DESC, id DESC`)).toMatch(/training_jobs_by_org/);
    expect(plan(`SELECT id FROM training_jobs WHERE status = 2 ORDER BY created_on`)).toMatch(/training_jobs_by_status/);
  });

  it('refuses bad jobs and datasets, keeps a model version taken once, and drops everything with the organization', () => {
    const db = upgraded();
    expect(() => job(db, { name: 'Pallets' })).toThrow(/CHECK/);
    expect(() => job(db, { version: '-1' })).toThrow(/CHECK/);
    expect(() => job(db, { status: 0 })).toThrow(/CHECK/);
    expect(() => job(db, { status: 4 })).toThrow(/CHECK/); // FAILED needs an error
    expect(() => job(db, { script: `${ORG}:lidar` })).toThrow(/CHECK/); // only custom jobs name a script
    job(db, { status: 4, code: 5 });
    expect(() => db.prepare('UPDATE training_jobs SET progress_percent = 101').run()).toThrow(/CHECK/);
    const take = db.prepare("INSERT INTO training_model_versions (organization_id, model_name, model_version, job_id, taken_at) VALUES (?, 'pallets', '1', ?, ?)");
    take.run(ORG, JOB, NOW);
    expect(() => take.run(ORG, JOB, NOW)).toThrow(/UNIQUE|PRIMARY/);
    const dataset = db.prepare("INSERT INTO training_datasets (id, organization_id, name, size_bytes, image_count, labels, created_on) VALUES (?, ?, ?, 1, 1, ?, ?)");
    expect(() => dataset.run('d1', ORG, 'D', '{}', NOW)).toThrow(/CHECK/);
    expect(() => dataset.run('d1', ORG, ' D', '[]', NOW)).toThrow(/CHECK/);
    dataset.run('d1', ORG, 'D', '["pallet"]', NOW);
    db.prepare('DELETE FROM training_jobs').run();
    expect(db.prepare('SELECT count(*) FROM training_model_versions').pluck().get()).toBe(1);
    db.prepare('DELETE FROM organizations WHERE id = ?').run(ORG);
    for (const table of ['training_datasets', 'training_jobs', 'training_model_versions']) expect(db.prepare(`SELECT count(*) FROM ${table}`).pluck().get(), table).toBe(0);
  });

  it("sets a custom job's script to NULL when its item is deleted (the job then fails at start)", () => {
    const db = upgraded();
    job(db, { custom: 1, script: `${ORG}:lidar` });
    db.prepare('UPDATE training_jobs SET script_item_id = ? WHERE id = ?').run(ITEM, JOB);
    db.prepare('DELETE FROM registry_items WHERE id = ?').run(ITEM);
    expect(db.prepare('SELECT script_item_id, registry_item_id FROM training_jobs').get()).toEqual({ script_item_id: null, registry_item_id: `${ORG}:lidar` });
  });
});

describe('0011 part_history', () => {
  const LOC = '33333333-3333-4333-8333-333333333333';
  const ROBOT = '55555555-5555-4555-8555-555555555555';
  const PART = '66666666-6666-4666-8666-666666666666';
  function fleet(): Database.Database {
    const db = migratedTo(11);
    db.prepare('INSERT INTO organizations (id, name, created_on) VALUES (?, ?, ?)').run(ORG, 'Acme', NOW);
    db.prepare('INSERT INTO locations (id, organization_id, name, created_on) VALUES (?, ?, ?, ?)').run(LOC, ORG, 'Site', NOW);
    db.prepare('INSERT INTO robots (id, location_id, name, created_on) VALUES (?, ?, ?, ?)').run(ROBOT, LOC, 'bot', NOW);
    db.prepare("INSERT INTO robot_parts (id, robot_id, location_id, name, main_part, fqdn, created_on, last_updated) VALUES (?, ?, ?, 'bot-main', 1, 'x', ?, ?)").run(PART, ROBOT, LOC, NOW, NOW);
    return db;
  }
  const entry = (db: Database.Database, overrides: Record<string, unknown> = {}) =>
    db
      .prepare(
        `INSERT INTO robot_part_history (part_id, edited_on, editor_type, editor_id, editor_name, name, config_json, main_part, marked_for_restart, secrets, last_updated)
         VALUES (@part, @now, @type, @editor, 'ci key', @name, @config, 1, 0, @secrets, @now)`,
      )
      .run({ part: PART, now: NOW, type: '', editor: KEY, name: 'bot-main', config: '{"b": 1, "a": 2}', secrets: '[]', ...overrides });

  it('creates a STRICT table with the columns the store uses, indexed newest first per part', () => {
    const db = migratedTo(11);
    expect(isStrict(db, 'robot_part_history')).toBe(true);
    expect(Object.keys(columns(db, 'robot_part_history'))).toEqual(['id', 'part_id', 'edited_on', 'editor_type', 'editor_id', 'editor_name', 'name', 'config_json', 'main_part', 'marked_for_restart', 'secrets', 'last_updated']);
    const plan = (db.prepare(`EXPLAIN QUERY PLAN SELECT id FROM robot_part_history WHERE part_id = ? ORDER BY edited_on DESC, id DESC`).all(PART) as { detail: string }[]).map((p) => p.detail).join();
    expect(plan).toMatch(/robot_part_history_newest_first/);
    expect(plan).not.toMatch(/TEMP B-TREE/);
  });

  it('keeps the old config text verbatim, refuses configs that are no object, unknown editor types and secrets that are no list; goes with its part', () => {
    const db = fleet();
    entry(db);
    expect(db.prepare('SELECT config_json FROM robot_part_history').pluck().get()).toBe('{"b": 1, "a": 2}');
    expect(() => entry(db, { config: '[1]' })).toThrow(/CHECK/);
    expect(() => entry(db, { type: 'robot' })).toThrow(/CHECK/);
    expect(() => entry(db, { editor: '' })).toThrow(/CHECK/);
    expect(() => entry(db, { secrets: '{}' })).toThrow(/CHECK/);
    expect(() => entry(db, { part: KEY })).toThrow(/FOREIGN KEY/);
    db.prepare('DELETE FROM robots WHERE id = ?').run(ROBOT);
    expect(db.prepare('SELECT count(*) FROM robot_part_history').pluck().get()).toBe(0);
  });
});

describe('0012 fragments', () => {
  const LOC = '33333333-3333-4333-8333-333333333333';
  const ROBOT = '55555555-5555-4555-8555-555555555555';
  const PART = '66666666-6666-4666-8666-666666666666';
  const FRAG = '77777777-7777-4777-8777-777777777777';
  const CONFIG = JSON.stringify({ fragments: ['a', { id: 'b', version: 'stable', prefix: 'x-' }, { id: 'c', version: 3 }, { version: '1' }, 7, { id: 'd', version: '' }] });
  /** A database at 0011 holding a part whose config names fragments, migrated to 0012. */
  function upgraded(): Database.Database {
    const db = migratedTo(11);
    db.prepare('INSERT INTO organizations (id, name, created_on) VALUES (?, ?, ?)').run(ORG, 'Acme', NOW);
    db.prepare('INSERT INTO locations (id, organization_id, name, created_on) VALUES (?, ?, ?, ?)').run(LOC, ORG, 'Site', NOW);
    db.prepare('INSERT INTO robots (id, location_id, name, created_on) VALUES (?, ?, ?, ?)').run(ROBOT, LOC, 'bot', NOW);
    db.prepare("INSERT INTO robot_parts (id, robot_id, location_id, name, main_part, config_json, fqdn, created_on, last_updated) VALUES (?, ?, ?, 'bot-main', 1, ?, 'x', ?, ?)").run(PART, ROBOT, LOC, CONFIG, NOW, NOW);
    migrate(db, serviceMigrations.slice(0, 12));
    return db;
  }
  const refs = (db: Database.Database) => db.prepare('SELECT position, fragment_id, version FROM part_fragment_refs ORDER BY part_id, position').all();
  const fragment = (db: Database.Database, id = FRAG) => {
    db.prepare("INSERT INTO fragments (id, organization_id, name, visibility, revision, created_on, last_updated) VALUES (?, ?, 'Base', 1, 1, ?, ?)").run(id, ORG, NOW, NOW);
    db.prepare("INSERT INTO fragment_revisions (fragment_id, revision, name, visibility, config_json, created_on, editor_type, editor_id, editor_name) VALUES (?, 1, 'Base', 1, ?, ?, '', ?, 'k')").run(id, CONFIG, NOW, KEY);
  };

  it('creates STRICT tables for fragments, revisions, tags and both reference indexes (the parts\' one without rowid)', () => {
    const db = upgraded();
    for (const table of ['fragments', 'fragment_revisions', 'fragment_tags', 'fragment_refs', 'part_fragment_refs']) expect(isStrict(db, table), table).toBe(true);
    expect(Object.keys(columns(db, 'fragments'))).toEqual(['id', 'organization_id', 'name', 'visibility', 'revision', 'created_on', 'last_updated']);
    expect(Object.keys(columns(db, 'fragment_revisions'))).toEqual(['fragment_id', 'revision', 'name', 'visibility', 'config_json', 'created_on', 'editor_type', 'editor_id', 'editor_name']);
    const plan = (sql: string) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((p) => p.detail).join();
    expect(plan("SELECT part_id FROM part_fragment_refs WHERE fragment_id = 'a' AND version = ''")).toMatch(/part_fragment_refs_by_fragment/);
    expect(plan("SELECT fragment_id FROM fragment_refs WHERE ref_id = 'a'")).toMatch(/fragment_refs_by_ref/);
    expect(plan(`SELECT 1 FROM part_fragment_refs WHERE robot_id = '${ROBOT}' AND fragment_id = 'a'`)).toMatch(/part_fragment_refs_by_robot/);
  });

  it("indexes the fragments existing parts' configs name (the stores index what they write from then on)", () => {
    const db = upgraded();
    expect(refs(db)).toEqual([
      { position: 0, fragment_id: 'a', version: '' },
      { position: 1, fragment_id: 'b', version: 'stable' },
      { position: 2, fragment_id: 'c', version: '' },
      { position: 5, fragment_id: 'd', version: '' },
    ]);
    expect(db.prepare('SELECT DISTINCT robot_id FROM part_fragment_refs').pluck().all()).toEqual([ROBOT]);
    expect(() => db.prepare("INSERT INTO part_fragment_refs (part_id, robot_id, position, fragment_id, version) VALUES (?, ?, 9, 'x', '')").run(KEY, ROBOT)).toThrow(/FOREIGN KEY/);
    expect(() => db.prepare("INSERT INTO part_fragment_refs (part_id, robot_id, position, fragment_id, version) VALUES (?, ?, 0, 'x', '')").run(PART, ROBOT)).toThrow(/UNIQUE|PRIMARY/);
    db.prepare('DELETE FROM robots').run();
    expect(refs(db)).toEqual([]);
  });

  it("keeps tags to the rule and to existing revisions, references to existing revisions, and drops everything with the fragment and its organization", () => {
    const db = upgraded();
    fragment(db);
    const ref = db.prepare("INSERT INTO fragment_refs (fragment_id, revision, position, ref_id, ref_version) VALUES (?, ?, 0, 'a', '')");
    ref.run(FRAG, 1);
    expect(() => ref.run(FRAG, 2)).toThrow(/FOREIGN KEY/);
    const tag = db.prepare('INSERT INTO fragment_tags (fragment_id, tag, revision, updated_on) VALUES (?, ?, ?, ?)');
    tag.run(FRAG, 'stable', 1, NOW);
    for (const bad of ['v2', '2x', 'Stable', 'a b', '', 'x'.repeat(61)]) expect(() => tag.run(FRAG, bad, 1, NOW), bad).toThrow(/CHECK/);
    expect(() => tag.run(FRAG, 'canary', 2, NOW)).toThrow(/FOREIGN KEY/);
    expect(() => db.prepare("UPDATE fragments SET visibility = 0").run()).toThrow(/CHECK/);
    expect(() => db.prepare("UPDATE fragment_revisions SET config_json = '[]'").run()).toThrow(/CHECK/);
    db.prepare('DELETE FROM fragments WHERE id = ?').run(FRAG);
    for (const table of ['fragment_revisions', 'fragment_tags', 'fragment_refs']) expect(db.prepare(`SELECT count(*) FROM ${table}`).pluck().get(), table).toBe(0);
    fragment(db);
    db.prepare('DELETE FROM organizations WHERE id = ?').run(ORG);
    for (const table of ['fragments', 'fragment_revisions', 'part_fragment_refs']) expect(db.prepare(`SELECT count(*) FROM ${table}`).pluck().get(), table).toBe(0);
  });
});

describe('0013 default_fragments', () => {
  const FRAG = '77777777-7777-4777-8777-777777777777';
  const OTHER = '88888888-8888-4888-8888-888888888888';
  function fleet(): Database.Database {
    const db = migratedTo(13);
    for (const [id, name] of [[ORG, 'Acme'], [OTHER, 'Beta']]) db.prepare('INSERT INTO organizations (id, name, created_on) VALUES (?, ?, ?)').run(id, name, NOW);
    db.prepare("INSERT INTO fragments (id, organization_id, name, visibility, revision, created_on, last_updated) VALUES (?, ?, 'Base', 2, 1, ?, ?)").run(FRAG, ORG, NOW, NOW);
    return db;
  }
  const entry = (db: Database.Database, org: string, position: number, fragment = FRAG, version = '') =>
    db.prepare('INSERT INTO organization_default_fragments (organization_id, position, fragment_id, version) VALUES (?, ?, ?, ?)').run(org, position, fragment, version);

  it('creates a STRICT table of ordered entries, indexed by fragment', () => {
    const db = migratedTo(13);
    expect(isStrict(db, 'organization_default_fragments')).toBe(true);
    expect(columns(db, 'organization_default_fragments')).toEqual({ organization_id: 'TEXT NOT NULL PK', position: 'INTEGER NOT NULL PK', fragment_id: 'TEXT NOT NULL', version: 'TEXT NOT NULL' });
    const plan = (db.prepare(`EXPLAIN QUERY PLAN SELECT organization_id FROM organization_default_fragments WHERE fragment_id = ? AND version = ''`).all(FRAG) as { detail: string }[]).map((p) => p.detail).join();
    expect(plan).toMatch(/organization_default_fragments_by_fragment/);
  });

  it('refuses unknown fragments, a position taken twice and long versions; entries go with their organization and their fragment', () => {
    const db = fleet();
    entry(db, ORG, 0);
    entry(db, OTHER, 0, FRAG, 'stable');
    expect(() => entry(db, ORG, 0)).toThrow(/UNIQUE|PRIMARY/);
    expect(() => entry(db, ORG, 1, OTHER)).toThrow(/FOREIGN KEY/);
    expect(() => entry(db, ORG, -1)).toThrow(/CHECK/);
    expect(() => entry(db, ORG, 2, FRAG, 'x'.repeat(61))).toThrow(/CHECK/);
    db.prepare('DELETE FROM organizations WHERE id = ?').run(OTHER);
    expect(db.prepare('SELECT organization_id FROM organization_default_fragments').pluck().all()).toEqual([ORG]);
    db.prepare('DELETE FROM fragments WHERE id = ?').run(FRAG);
    expect(db.prepare('SELECT count(*) FROM organization_default_fragments').pluck().get()).toBe(0);
  });
});

describe('0014 users', () => {
  const USER = '33333333-3333-4333-8333-333333333333';
  const user = (db: Database.Database, id: string, email: string) =>
    db.prepare("INSERT INTO users (id, email, display_name, created_at) VALUES (?, ?, 'Ada', ?)").run(id, email, NOW);
  const invite = (db: Database.Database, email: string) =>
    db.prepare('INSERT INTO organization_invites (organization_id, email, send_email, token_hash, created_at) VALUES (?, ?, 1, NULL, ?)').run(ORG, email, NOW);

  it('creates STRICT tables for users, invites and their authorizations, and gives api_keys a user', () => {
    const db = migratedTo(14);
    for (const table of ['users', 'organization_invites', 'organization_invite_authorizations']) expect(isStrict(db, table)).toBe(true);
    expect(columns(db, 'users')).toEqual({ id: 'TEXT NOT NULL PK', email: 'TEXT NOT NULL', display_name: 'TEXT NOT NULL', created_at: 'TEXT NOT NULL', last_login: 'TEXT' });
    expect(columns(db, 'api_keys')).toMatchObject({ user_id: 'TEXT' });
  });

  it('keeps emails lower-cased and unique, refuses keys of unknown users, and drops invites with their organization', () => {
    const db = migratedTo(14);
    user(db, USER, 'ada@example.com');
    expect(() => user(db, '44444444-4444-4444-8444-444444444444', 'ada@example.com')).toThrow(/UNIQUE/);
    expect(() => user(db, '44444444-4444-4444-8444-444444444444', 'Bob@example.com')).toThrow(/CHECK/);
    expect(() => user(db, '44444444-4444-4444-8444-444444444444', 'nobody')).toThrow(/CHECK/);
    const key = (userId: string) =>
      db.prepare("INSERT INTO api_keys (id, name, hash_scheme, salt, hash, created_at, user_id) VALUES (?, 'k', 'x', zeroblob(16), zeroblob(32), ?, ?)").run(KEY, NOW, userId);
    expect(() => key('55555555-5555-4555-8555-555555555555')).toThrow(/FOREIGN KEY/);
    key(USER);
    db.prepare('INSERT INTO organizations (id, name, created_on) VALUES (?, ?, ?)').run(ORG, 'Acme', NOW);
    const id = invite(db, 'ada@example.com').lastInsertRowid;
    expect(() => invite(db, 'ada@example.com')).toThrow(/UNIQUE/);
    expect(() => invite(db, 'ADA@example.com')).toThrow(/CHECK/);
    db.prepare("INSERT INTO organization_invite_authorizations (invite_id, resource_type, resource_id, role_id) VALUES (?, 'organization', ?, 'owner')").run(id, ORG);
    expect(() => db.prepare("INSERT INTO organization_invite_authorizations (invite_id, resource_type, resource_id, role_id) VALUES (?, 'organization', ?, 'admin')").run(id, ORG)).toThrow(/CHECK/);
    db.prepare('DELETE FROM organizations WHERE id = ?').run(ORG);
    expect(db.prepare('SELECT count(*) FROM organization_invite_authorizations').pluck().get()).toBe(0);
  });
});

describe('0015 keys_and_secrets', () => {
  const step = serviceMigrations.indexOf(keysAndSecrets) + 1;
  const LOC = '33333333-3333-4333-8333-333333333333';
  const key = (db: Database.Database) =>
    db.prepare("INSERT INTO api_keys (id, name, hash_scheme, salt, hash, created_at) VALUES (?, 'k', 'hmac-sha256-v1', ?, ?, ?)").run(KEY, Buffer.alloc(16), Buffer.alloc(32), NOW);

  it('gives keys a secret version (1 for the keys there were) and a last use, and existing locations a secret each', () => {
    const db = migratedTo(step - 1);
    key(db);
    db.prepare('INSERT INTO organizations (id, name, created_on) VALUES (?, ?, ?)').run(ORG, 'Acme', NOW);
    db.prepare('INSERT INTO locations (id, organization_id, name, created_on) VALUES (?, ?, ?, ?)').run(LOC, ORG, 'Site', NOW);
    migrate(db, serviceMigrations.slice(0, step));
    expect(db.prepare('SELECT secret_version, last_used_at FROM api_keys').get()).toEqual({ secret_version: 1, last_used_at: null });
    const secret = db.prepare('SELECT id, location_id, secret, created_on FROM location_secrets').get() as { id: string; location_id: string; secret: string; created_on: string };
    expect(secret).toMatchObject({ location_id: LOC, created_on: NOW });
    expect(secret.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(secret.secret).toMatch(/^[0-9a-f]{48}$/);
  });

  it('creates a STRICT secrets table that refuses short secrets, unknown locations and goes with its location', () => {
    const db = migratedTo(step);
    expect(isStrict(db, 'location_secrets')).toBe(true);
    expect(isStrict(db, 'api_keys')).toBe(true);
    expect(columns(db, 'location_secrets')).toEqual({ id: 'TEXT NOT NULL PK', location_id: 'TEXT NOT NULL', secret: 'TEXT NOT NULL', created_on: 'TEXT NOT NULL' });
    expect(columns(db, 'api_keys')).toMatchObject({ secret_version: 'INTEGER NOT NULL', last_used_at: 'TEXT' });
    const insert = (id: string, location: string, secret: string) => db.prepare('INSERT INTO location_secrets (id, location_id, secret, created_on) VALUES (?, ?, ?, ?)').run(id, location, secret, NOW);
    expect(() => insert(KEY, LOC, 'x'.repeat(32))).toThrow(/FOREIGN KEY/);
    db.prepare('INSERT INTO organizations (id, name, created_on) VALUES (?, ?, ?)').run(ORG, 'Acme', NOW);
    db.prepare('INSERT INTO locations (id, organization_id, name, created_on) VALUES (?, ?, ?, ?)').run(LOC, ORG, 'Site', NOW);
    expect(() => insert(KEY, LOC, 'short')).toThrow(/CHECK/);
    expect(() => insert('short', LOC, 'x'.repeat(32))).toThrow(/CHECK/);
    insert(KEY, LOC, 'x'.repeat(32));
    db.prepare('DELETE FROM locations WHERE id = ?').run(LOC);
    expect(db.prepare('SELECT count(*) FROM location_secrets').pluck().get()).toBe(0);
  });

  it('refuses a secret version below 1 and a last use before creation; finds authorizations by resource through an index', () => {
    const db = migratedTo(step);
    key(db);
    expect(() => db.prepare('UPDATE api_keys SET secret_version = 0').run()).toThrow(/CHECK/);
    expect(() => db.prepare("UPDATE api_keys SET last_used_at = '2024-01-01T00:00:00.000Z'").run()).toThrow(/CHECK/);
    const plan = (db.prepare("EXPLAIN QUERY PLAN SELECT identity_id FROM authorizations WHERE resource_type = 'robot' AND resource_id = ?").all(KEY) as { detail: string }[]).map((p) => p.detail).join();
    expect(plan).toMatch(/authorizations_by_resource/);
  });
});

describe('0016 part_module_refs', () => {
  const LOC = '33333333-3333-4333-8333-333333333333';
  const ROBOT = '55555555-5555-4555-8555-555555555555';
  const PART = '66666666-6666-4666-8666-666666666666';
  const OTHER = '77777777-7777-4777-8777-777777777777';
  /** A database at 0015 holding parts whose configs name modules (and things that are not module entries), migrated to 0016. */
  function upgraded(): Database.Database {
    const db = migratedTo(15);
    db.prepare('INSERT INTO organizations (id, name, created_on) VALUES (?, ?, ?)').run(ORG, 'Acme', NOW);
    db.prepare('INSERT INTO locations (id, organization_id, name, created_on) VALUES (?, ?, ?, ?)').run(LOC, ORG, 'Site', NOW);
    db.prepare('INSERT INTO robots (id, location_id, name, created_on) VALUES (?, ?, ?, ?)').run(ROBOT, LOC, 'bot', NOW);
    const part = db.prepare("INSERT INTO robot_parts (id, robot_id, location_id, name, main_part, config_json, fqdn, created_on, last_updated) VALUES (?, ?, ?, ?, ?, ?, 'x', ?, ?)");
    const modules = [{ module_id: 'acme:nav', version: '1.0.0' }, { module_id: 'acme:nav', version: '2.0.0' }, { module_id: `${ORG}:arm` }, { module_id: 7 }, { name: 'local' }, 'acme:text', ['acme:array']];
    part.run(PART, ROBOT, LOC, 'bot-main', 1, JSON.stringify({ modules }), NOW, NOW);
    part.run(OTHER, ROBOT, LOC, 'bot-arm', 0, JSON.stringify({ modules: { one: { module_id: 'acme:nav' } }, components: [{ module_id: 'acme:not-a-module' }] }), NOW, NOW);
    migrate(db, serviceMigrations.slice(0, 16));
    return db;
  }
  const refs = (db: Database.Database) => db.prepare('SELECT part_id, module_id FROM part_module_refs ORDER BY part_id, module_id').all();

  it('creates a STRICT table without rowid, indexed by module id', () => {
    const db = upgraded();
    expect(isStrict(db, 'part_module_refs')).toBe(true);
    expect(columns(db, 'part_module_refs')).toEqual({ part_id: 'TEXT NOT NULL PK', module_id: 'TEXT NOT NULL PK' });
    const plan = (db.prepare("EXPLAIN QUERY PLAN SELECT count(DISTINCT part_id) FROM part_module_refs WHERE module_id IN ('a', 'b')").all() as { detail: string }[]).map((p) => p.detail).join();
    expect(plan).toMatch(/part_module_refs_by_module/);
  });

  it("indexes the module ids existing parts' configs name, once per part, as the scan it replaces read them; goes with the part", () => {
    const db = upgraded();
    expect(refs(db)).toEqual([
      { part_id: PART, module_id: `${ORG}:arm` },
      { part_id: PART, module_id: 'acme:nav' },
      // `modules` written as an object: its values were read as entries by json_each, so they still are.
      { part_id: OTHER, module_id: 'acme:nav' },
    ]);
    expect(() => db.prepare("INSERT INTO part_module_refs (part_id, module_id) VALUES (?, 'x')").run(ROBOT)).toThrow(/FOREIGN KEY/);
    expect(() => db.prepare("INSERT INTO part_module_refs (part_id, module_id) VALUES (?, 'acme:nav')").run(PART)).toThrow(/UNIQUE|PRIMARY/);
    db.prepare('DELETE FROM robot_parts WHERE id = ?').run(OTHER);
    expect(refs(db)).toHaveLength(2);
    db.prepare('DELETE FROM robots').run();
    expect(refs(db)).toEqual([]);
  });

  it("gives items their usage and platforms, and keeps them through refs added and removed, either id form (a part naming both counts once), items made later, namespaces changed, files recorded, parts deleted", () => {
    const db = migratedTo(15);
    const item = db.prepare("INSERT INTO registry_items (id, organization_id, name, type, created_at, updated_at) VALUES (?, ?, ?, 2, ?, ?)");
    const NAV = '88888888-8888-4888-8888-888888888888';
    const ARM = '99999999-9999-4999-8999-999999999999';
    db.prepare('INSERT INTO organizations (id, name, created_on) VALUES (?, ?, ?)').run(ORG, 'Acme', NOW);
    db.prepare('INSERT INTO locations (id, organization_id, name, created_on) VALUES (?, ?, ?, ?)').run(LOC, ORG, 'Site', NOW);
    db.prepare('INSERT INTO robots (id, location_id, name, created_on) VALUES (?, ?, ?, ?)').run(ROBOT, LOC, 'bot', NOW);
    const part = db.prepare("INSERT INTO robot_parts (id, robot_id, location_id, name, main_part, config_json, fqdn, created_on, last_updated) VALUES (?, ?, ?, ?, ?, ?, 'x', ?, ?)");
    part.run(PART, ROBOT, LOC, 'bot-main', 1, JSON.stringify({ modules: [{ module_id: `${ORG}:nav` }] }), NOW, NOW);
    item.run(NAV, ORG, 'nav', NOW, NOW);
    db.prepare("INSERT INTO registry_versions (item_id, version, version_key, uploaded_at) VALUES (?, '1.0.0', 'k', ?)").run(NAV, NOW);
    const file = db.prepare("INSERT INTO registry_files (item_id, version, platform, size_bytes, sha256, uploaded_at) VALUES (?, '1.0.0', ?, 1, ?, ?)");
    file.run(NAV, 'linux/arm64', 'a'.repeat(64), NOW);
    file.run(NAV, 'darwin/any', 'a'.repeat(64), NOW);
    migrate(db, serviceMigrations.slice(0, 16));
    const state = () => db.prepare('SELECT name, usage, platforms FROM registry_items ORDER BY name').all();
    // What the triggers keep must equal what a count from the index says, whatever happened before.
    const recount = () =>
      db.prepare(`SELECT r.name, (SELECT count(DISTINCT part_id) FROM part_module_refs WHERE module_id IN (r.organization_id || ':' || r.name, o.public_namespace || ':' || r.name)) AS usage
                    FROM registry_items r JOIN organizations o ON o.id = r.organization_id ORDER BY r.name`).all();
    const check = (expected: Record<string, number>) => {
      expect(Object.fromEntries((state() as { name: string; usage: number }[]).map((r) => [r.name, r.usage]))).toEqual(expected);
      expect(db.prepare('SELECT name, usage FROM registry_items ORDER BY name').all()).toEqual(recount());
    };
    expect(state()).toEqual([{ name: 'nav', usage: 1, platforms: '["darwin/any","linux/arm64"]' }]);
    const ref = db.prepare('INSERT INTO part_module_refs (part_id, module_id) VALUES (?, ?)');
    const unref = db.prepare('DELETE FROM part_module_refs WHERE part_id = ? AND module_id = ?');
    // Named before the item exists: counted when it is made.
    ref.run(PART, `${ORG}:arm`);
    item.run(ARM, ORG, 'arm', NOW, NOW);
    check({ arm: 1, nav: 1 });
    part.run(OTHER, ROBOT, LOC, 'bot-arm', 0, '{}', NOW, NOW);
    ref.run(OTHER, 'acme:nav');
    check({ arm: 1, nav: 1 });
    // The namespace given: `acme:nav` names nav now; then a part naming nav in both forms counts once, whichever goes first.
    db.prepare("UPDATE organizations SET public_namespace = 'acme' WHERE id = ?").run(ORG);
    check({ arm: 1, nav: 2 });
    ref.run(PART, 'acme:nav');
    check({ arm: 1, nav: 2 });
    unref.run(PART, `${ORG}:nav`);
    check({ arm: 1, nav: 2 });
    unref.run(PART, 'acme:nav');
    check({ arm: 1, nav: 1 });
    ref.run(OTHER, `${ORG}:nav`);
    ref.run(OTHER, 'acme:arm');
    check({ arm: 2, nav: 1 });
    // Ids of no item, other organizations' forms and malformed ids change nothing.
    for (const id of ['acme:nope', 'other:nav', 'nav', ':nav', `${ORG}:`]) ref.run(PART, id);
    check({ arm: 2, nav: 1 });
    // The namespace changed: the old one's refs stop counting.
    db.prepare("UPDATE organizations SET public_namespace = 'acme-2' WHERE id = ?").run(ORG);
    check({ arm: 1, nav: 1 });
    db.prepare("UPDATE organizations SET public_namespace = 'acme' WHERE id = ?").run(ORG);
    // A part deleted takes its refs, both forms, with it.
    db.prepare('DELETE FROM robot_parts WHERE id = ?').run(OTHER);
    check({ arm: 1, nav: 0 });
    db.prepare('DELETE FROM robots').run();
    check({ arm: 0, nav: 0 });
    // A file recorded: the item's platforms, sorted and each once.
    expect(db.prepare('SELECT platforms FROM registry_items WHERE id = ?').pluck().get(ARM)).toBe('[]');
    db.prepare("INSERT INTO registry_versions (item_id, version, version_key, uploaded_at) VALUES (?, '1.0.0', 'k', ?)").run(ARM, NOW);
    db.prepare("INSERT INTO registry_versions (item_id, version, version_key, uploaded_at) VALUES (?, '2.0.0', 'l', ?)").run(NAV, NOW);
    file.run(ARM, 'linux/any', 'b'.repeat(64), NOW);
    db.prepare("INSERT INTO registry_files (item_id, version, platform, size_bytes, sha256, uploaded_at) VALUES (?, '2.0.0', 'darwin/any', 1, ?, ?)").run(NAV, 'c'.repeat(64), NOW);
    expect(state()).toEqual([
      { name: 'arm', usage: 0, platforms: '["linux/any"]' },
      { name: 'nav', usage: 0, platforms: '["darwin/any","linux/arm64"]' },
    ]);
  });
});
