// The demo fleet a first launch shows: realistic in shape and alive — and the benchmark option that
// makes it any size.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { credentials, type Metadata } from '@grpc/grpc-js';
import { MLTrainingServiceClient, TrainingStatus } from '../../proto/gen/fleet/mltraining/v1/ml_training';
import { PackageType, RegistryItemStatus, Visibility } from '../../proto/gen/fleet/app/v1/registry';
import { RegistryFiles } from '../../service/registry/files';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig, type JsonObject } from '../../fleetconfig';
import { DEMO_ORGANIZATIONS } from '../../service/demo';
import { fragmentLookup } from '../../service/fragments/resolve';
import { FragmentStore } from '../../service/fragments/store';
import { startSimulator } from '../../service/simulator';
import { appCall, call, ownerMetadata, startTestService, type TestService } from './helpers';
import { BURST_MARK, HISTORY_HOURS } from '../../service/logs/history';
import { RETAIN_PER_PART } from '../../service/logs/store';

const LIVE_MS = 10_000;

describe('the demo fleet', () => {
  let t: TestService;
  let owner: Metadata;
  beforeAll(async () => {
    t = await startTestService({ demo: true });
    owner = await ownerMetadata(t);
  });
  afterAll(async () => {
    await t.stop();
  });

  it('has a registry: modules of several versions and platforms, ML models and training scripts, public and private, with documentation, each file a real tarball whose size and SHA-256 the service records', async () => {
    const items = (await appCall(t, 'listRegistryItems', { pageSize: 1000 }, owner)).items;
    const types = new Set(items.map((i) => i.type));
    expect([...types].sort()).toEqual([PackageType.PACKAGE_TYPE_ARCHIVE, PackageType.PACKAGE_TYPE_MODULE, PackageType.PACKAGE_TYPE_ML_TRAINING, PackageType.PACKAGE_TYPE_ML_MODEL].sort());
    expect(items.some((i) => i.visibility === Visibility.VISIBILITY_PUBLIC)).toBe(true);
    expect(items.some((i) => i.visibility === Visibility.VISIBILITY_PRIVATE)).toBe(true);
    expect(items.some((i) => i.status === RegistryItemStatus.REGISTRY_ITEM_STATUS_IN_DEVELOPMENT)).toBe(true);
    const { module: slam } = await appCall(t, 'getModule', { moduleId: 'acme-warehouse:lidar-slam' }, owner);
    expect(slam?.versions.map((v) => v.version)).toEqual(['1.0.0', '1.1.0', '1.2.0']);
    expect(slam?.versions.at(-1)?.platforms).toEqual(['darwin/arm64', 'linux/amd64', 'linux/arm64']);
    expect(slam?.apps.map((a) => a.name)).toEqual(['floor-view']);
    const doc = (await appCall(t, 'getRegistryItem', { itemId: 'acme-warehouse:lidar-slam', includeMarkdownDocumentation: true }, owner)).item?.markdownDocumentation;
    expect(doc).toMatch(/^# lidar-slam/);
    // Every recorded file is on disk with the size and SHA-256 the registry lists, and is a gzipped tar.
    const files = t.db().prepare('SELECT item_id, version, platform, size_bytes, sha256 FROM registry_files').all() as { item_id: string; version: string; platform: string; size_bytes: number; sha256: string }[];
    expect(files.length).toBeGreaterThan(15);
    for (const f of files) {
      const bytes = readFileSync(new RegistryFiles(t.dataDir).path(f.item_id, f.version, f.platform));
      expect(bytes.length).toBe(f.size_bytes);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(f.sha256);
      expect(gunzipSync(bytes).subarray(257, 262).toString()).toBe('ustar');
    }
    expect((await appCall(t, 'getAppContent', { publicNamespace: 'acme-warehouse', name: 'floor-view' }, owner)).content).toMatchObject({ version: '1.2.0', entrypoint: 'app/index.html' });
  });

  it('trains: datasets in every organization (one unreadable), and in the first one jobs in every state, the succeeded ones with their models published', async () => {
    const client = new MLTrainingServiceClient(t.service.address, credentials.createInsecure());
    try {
      const orgs = (await appCall(t, 'listOrganizations', {}, owner)).organizations;
      for (const org of orgs) {
        const { datasets } = await call(client.listTrainingDatasets.bind(client), { orgId: org.id }, owner);
        expect(datasets.length, org.name).toBeGreaterThanOrEqual(2);
        for (const d of datasets) expect(d).toMatchObject({ name: expect.any(String), sizeBytes: expect.any(Number), imageCount: expect.any(Number), labels: expect.arrayContaining([expect.any(String)]) });
        expect(datasets.map((d) => d.createdOn!.getTime())).toEqual(datasets.map((d) => d.createdOn!.getTime()).sort((a, b) => b - a));
      }
      expect(t.db().prepare('SELECT count(*) FROM training_datasets WHERE readable = 0').pluck().get()).toBeGreaterThanOrEqual(1);

      const main = orgs.find((o) => o.name === DEMO_ORGANIZATIONS[0]!.name)!;
      const { jobs } = await call(client.listTrainingJobs.bind(client), { orgId: main.id, status: 0, pageSize: 0, pageToken: '' }, owner);
      const states = new Set(jobs.map((j) => j.status));
      for (const s of [TrainingStatus.TRAINING_STATUS_PENDING, TrainingStatus.TRAINING_STATUS_RUNNING, TrainingStatus.TRAINING_STATUS_SUCCEEDED, TrainingStatus.TRAINING_STATUS_FAILED, TrainingStatus.TRAINING_STATUS_CANCELED]) {
        expect(states.has(s), TrainingStatus[s]).toBe(true);
      }
      expect(jobs.filter((j) => j.status === TrainingStatus.TRAINING_STATUS_RUNNING).every((j) => j.progressPercent > 0 && j.progressPercent < 100)).toBe(true);
      for (const j of jobs.filter((j) => j.status === TrainingStatus.TRAINING_STATUS_FAILED)) expect(j.error?.message).toMatch(/dataset/);
      expect(jobs.find((j) => j.status === TrainingStatus.TRAINING_STATUS_CANCELED)).toMatchObject({ progressPercent: expect.any(Number), cancelRequested: expect.any(Date) });
      const succeeded = jobs.filter((j) => j.status === TrainingStatus.TRAINING_STATUS_SUCCEEDED);
      expect(succeeded.some((j) => j.isCustomJob && j.registryItemId === 'acme-warehouse:detector-trainer')).toBe(true);
      for (const j of succeeded) {
        const versions = (await appCall(t, 'listRegistryItemVersions', { itemId: j.syncedModelId }, owner)).versions;
        expect(versions.map((v) => v.version), j.syncedModelId).toContain(j.modelVersion);
        expect((await appCall(t, 'getRegistryItem', { itemId: j.syncedModelId }, owner)).item?.type).toBe(PackageType.PACKAGE_TYPE_ML_MODEL);
      }
      // The demo model gained the version a job published, after the uploaded ones.
      expect((await appCall(t, 'listRegistryItemVersions', { itemId: 'acme-warehouse:pallet-detector' }, owner)).versions.map((v) => v.version)).toEqual(['1.0.0', '2.0.0', '2.1.0']);
    } finally {
      client.close();
    }
  });

  it('has people: members with roles at organization, location and machine scope, one in two organizations, and pending invites', async () => {
    const orgs = (await appCall(t, 'listOrganizations', {}, owner)).organizations;
    const acme = orgs.find((o) => o.name === 'Acme Warehouse Robotics')!.id;
    const { members, invites } = await appCall(t, 'listOrganizationMembers', { orgId: acme }, owner);
    const held = Object.fromEntries(members.map((m) => [m.name, m.authorizations.map((a) => a.authorizationId).join()]));
    expect(held).toMatchObject({ 'Dana Whitfield': 'organization_owner', 'Marco Reyes': 'organization_operator', 'Jess Park': 'location_owner', 'Sam Okafor': 'location_operator', 'Lena Voss': 'robot_operator' });
    expect(invites.map((i) => i.email)).toEqual(['ops-lead@acme-robotics.example']);
    // Most have signed in lately; the one given a role last week has not yet.
    const signedIn = Object.fromEntries(members.map((m) => [m.name, m.lastLogin === undefined ? null : Date.now() - m.lastLogin.getTime()]));
    expect(signedIn['Sam Okafor']).toBeNull();
    expect(signedIn['Dana Whitfield']).toBeLessThan(3 * 3_600_000);
    expect(Object.values(signedIn).filter((ago) => ago !== null)).toHaveLength(4);
    const northfield = orgs.find((o) => o.name === 'Northfield Agri-Bots')!.id;
    const people = await appCall(t, 'listOrganizationMembers', { orgId: northfield }, owner);
    expect(people.members.map((m) => m.name)).toEqual(['Lena Voss']);
    expect(people.invites.map((i) => i.email)).toEqual(['agronomist@northfield.example']);
  });

  it('has keys used when they last edited (not "never used"), and location secrets some of which were rotated in the last months', async () => {
    const orgs = (await appCall(t, 'listOrganizations', {}, owner)).organizations;
    const acme = orgs.find((o) => o.name === 'Acme Warehouse Robotics')!.id;
    const keys = (await appCall(t, 'listKeys', { orgId: acme }, owner)).apiKeys.map((k) => k.apiKey!);
    const editors = t.db().prepare('SELECT editor_id AS id, max(edited_on) AS at FROM robot_part_history GROUP BY editor_id').all() as { id: string; at: string }[];
    const edited = keys.filter((k) => editors.some((e) => e.id === k.id));
    expect(edited.map((k) => k.name)).toContain('dana-laptop');
    for (const k of edited) {
      expect(k.lastUsed, k.name).toBeInstanceOf(Date);
      expect(k.lastUsed!.getTime(), k.name).toBeGreaterThanOrEqual(Date.parse(editors.find((e) => e.id === k.id)!.at) - 60_000);
    }
    const locations = t.db().prepare('SELECT l.id, l.created_on AS created, s.created_on AS secret FROM locations l JOIN location_secrets s ON s.location_id = l.id WHERE l.organization_id = ?').all(acme) as { id: string; created: string; secret: string }[];
    const now = Date.now();
    const rotated = locations.filter((l) => l.secret > l.created);
    expect(rotated.length).toBeGreaterThan(0);
    expect(rotated.length).toBeLessThan(locations.length);
    for (const l of rotated) expect(now - Date.parse(l.secret)).toBeLessThan(200 * 86_400_000);
    const { auth } = await appCall(t, 'locationAuth', { locationId: rotated[0]!.id }, owner);
    expect(auth!.secrets.map((s) => s.createdOn!.toISOString())).toEqual([new Date(rotated[0]!.secret).toISOString()]);
  });

  it('has the demo organizations with nested locations (site → building → floor), about a hundred machines of one to four parts, and metadata', async () => {
    const orgs = (await appCall(t, 'listOrganizations', {}, owner)).organizations;
    expect(orgs.map((o) => o.name).sort()).toEqual(DEMO_ORGANIZATIONS.map((o) => o.name).sort());
    let machines = 0;
    let deepest = 0;
    for (const org of orgs) {
      const locations = (await appCall(t, 'listLocations', { orgId: org.id, pageSize: 1000 }, owner)).locations;
      const parent = new Map(locations.map((l) => [l.id, l.parentLocationId]));
      for (const l of locations) {
        let depth = 1;
        for (let at = l.parentLocationId; at !== '' && parent.has(at); at = parent.get(at) ?? '') depth += 1;
        deepest = Math.max(deepest, depth);
      }
      const summaries = (await appCall(t, 'listMachineSummaries', { organizationId: org.id, pageSize: 1000 }, owner)).machineSummaries;
      // Shared locations appear in the partner's listing too: count each machine with its owner only.
      const own = summaries.filter((s) => locations.some((l) => l.id === s.locationId && l.organizations[0]?.organizationId === org.id));
      machines += own.length;
      for (const s of summaries) {
        expect(s.partSummaries.length).toBeGreaterThanOrEqual(1);
        expect(s.partSummaries.length).toBeLessThanOrEqual(4);
        expect(s.partSummaries.filter((p) => p.mainPart)).toHaveLength(1);
      }
      expect(Object.keys((await appCall(t, 'getOrganizationMetadata', { orgId: org.id }, owner)).metadata ?? {})).not.toHaveLength(0);
      const machine = summaries[0]!;
      expect(Object.keys((await appCall(t, 'getRobotMetadata', { robotId: machine.machineId }, owner)).metadata ?? {})).toContain('serial');
      const config = (await appCall(t, 'getRobotPart', { robotPartId: machine.partSummaries[0]!.partId }, owner)).part?.robotConfig ?? {};
      expect(Object.hasOwn(config, 'components') || Object.hasOwn(config, 'fragments')).toBe(true);
    }
    expect(deepest).toBeGreaterThanOrEqual(3);
    expect(machines).toBeGreaterThanOrEqual(90);
    expect(machines).toBeLessThanOrEqual(130);
    // One location is shared with a partner organization.
    expect(t.db().prepare('SELECT count(*) FROM location_shares').pluck().get()).toBe(1);
  });

  it('configures every part plausibly: each config resolves, each main part runs components, and every module and package it names is in the demo registry', () => {
    const db = t.db();
    const store = new FragmentStore(db);
    const parts = db
      .prepare('SELECT p.id, p.main_part, p.config_json, l.organization_id FROM robot_parts p JOIN locations l ON l.id = p.location_id')
      .all() as { id: string; main_part: number; config_json: string; organization_id: string }[];
    const items = new Set(
      (db.prepare("SELECT coalesce(o.public_namespace, o.id) || ':' || r.name AS id FROM registry_items r JOIN organizations o ON o.id = r.organization_id").pluck().all() as string[]),
    );
    let withFragments = 0;
    let withMods = 0;
    for (const part of parts) {
      const config = JSON.parse(part.config_json) as JsonObject;
      const r = resolveConfig(config, fragmentLookup(store, part.organization_id, []));
      expect(r.issues, part.config_json).toEqual([]);
      if (part.main_part === 1) expect((r.effective.components as unknown[] | undefined)?.length ?? 0, part.config_json).toBeGreaterThan(0);
      for (const m of (r.effective.modules ?? []) as JsonObject[]) expect(items.has(m.module_id as string), String(m.module_id)).toBe(true);
      for (const p of (r.effective.packages ?? []) as JsonObject[]) expect(items.has(p.package as string), String(p.package)).toBe(true);
      if (r.fragments.length > 0) withFragments += 1;
      if (r.mods.length > 0) {
        withMods += 1;
        expect(r.mods.every((m) => m.applied)).toBe(true);
      }
    }
    expect(withFragments).toBeGreaterThan(parts.filter((p) => p.main_part === 1).length / 2);
    expect(withMods).toBeGreaterThan(0);
  });

  it('shares fragments across families of machines: an AMR base nesting a lidar block, pinned to revisions and tags, used across organizations, an organization with default fragments, and weeks of history by several keys', async () => {
    const orgs = (await appCall(t, 'listOrganizations', {}, owner)).organizations;
    const acme = orgs.find((o) => o.name === 'Acme Warehouse Robotics')!;
    const fragments = (await appCall(t, 'listFragments', { orgId: acme.id, visibilities: [1, 2] }, owner)).fragments;
    const amr = fragments.find((f) => f.name === 'Nimbus AMR-500 base')!;
    const lidar = fragments.find((f) => f.name === 'RPLIDAR S2 + SLAM')!;
    expect(lidar.visibility).toBe(2);
    expect(JSON.stringify(amr.config)).toContain(lidar.id);
    expect(amr.tags.map((x) => x.tag).sort()).toEqual(['canary', 'stable']);
    expect(amr.robotPartCount).toBeGreaterThan(10);
    // The lidar reaches more parts than the AMR base: forklifts nest it, and another organization uses it.
    expect(lidar.robotPartCount).toBeGreaterThan(amr.robotPartCount);
    const versions = t.db().prepare("SELECT DISTINCT version FROM part_fragment_refs WHERE fragment_id = ?").pluck().all(amr.id) as string[];
    expect(versions.sort()).toEqual(['', '2', 'canary', 'stable']);
    const harborline = orgs.find((o) => o.name === 'Harborline Logistics AMR')!;
    expect((await appCall(t, 'listMachineSummaries', { organizationId: harborline.id, fragmentIds: [lidar.id] }, owner)).machineSummaries.length).toBeGreaterThan(0);
    const northfield = orgs.find((o) => o.name === 'Northfield Agri-Bots')!;
    expect(northfield.defaultFragments).toHaveLength(1);

    const history = (await appCall(t, 'getFragmentHistory', { id: amr.id }, owner)).history;
    expect(history.map((h) => h.revision)).toEqual(['4', '3', '2', '1']);
    expect(new Set(history.map((h) => h.editedBy!.displayName)).size).toBeGreaterThanOrEqual(2);
    expect(Date.now() - history.at(-1)!.editedOn!.getTime()).toBeGreaterThan(14 * 86_400_000);

    const edited = t.db().prepare('SELECT part_id, count(*) AS n FROM robot_part_history GROUP BY part_id ORDER BY n DESC').all() as { part_id: string; n: number }[];
    expect(edited.length).toBeGreaterThan(10);
    const entries = (await appCall(t, 'getRobotPartHistory', { robotPartId: edited[0]!.part_id }, owner)).history;
    expect(entries.length).toBeGreaterThanOrEqual(2);
    expect(new Set(entries.map((e) => e.editedBy!.displayName)).size).toBeGreaterThanOrEqual(2);
    const editors = t.db().prepare('SELECT DISTINCT editor_name FROM robot_part_history').pluck().all() as string[];
    expect(editors.length).toBeGreaterThanOrEqual(3);
    const span = t.db().prepare('SELECT min(edited_on), max(edited_on) FROM robot_part_history').raw().get() as [string, string];
    expect(Date.parse(span[1]) - Date.parse(span[0])).toBeGreaterThan(14 * 86_400_000);
    // Each entry's old state is stamped with the change before it, and the part's last_updated is its newest config change.
    const part = (await appCall(t, 'getRobotPart', { robotPartId: edited[0]!.part_id }, owner)).part!;
    for (const e of entries) {
      expect(e.old!.lastUpdated!.getTime()).toBeLessThanOrEqual(e.when!.getTime());
      expect(e.old!.lastUpdated!.getTime()).toBeLessThanOrEqual(part.lastUpdated!.getTime());
    }
    expect(entries.some((e) => e.when!.getTime() === part.lastUpdated!.getTime())).toBe(true);
  });

  it('is alive: some parts check in every few seconds, some come and go, some went quiet minutes or days ago, some never connected', async () => {
    const sim = startSimulator(t.db(), () => undefined, { autoStart: false });
    const now = Date.now();
    // Ten seconds of simulation, as the service runs it.
    for (let s = 0; s < 10; s++) sim.tick(new Date(now + s * 1000));
    const at = now + 9_000;
    const rows = t.db().prepare('SELECT last_access FROM robot_parts').pluck().all() as (string | null)[];
    const live = rows.filter((r) => r !== null && at - Date.parse(r) <= LIVE_MS).length;
    const never = rows.filter((r) => r === null).length;
    const quietMinutes = rows.filter((r) => r !== null && at - Date.parse(r) > 60_000 && at - Date.parse(r) < 3_600_000).length;
    const quietDays = rows.filter((r) => r !== null && at - Date.parse(r) > 86_400_000).length;
    expect(live).toBeGreaterThan(rows.length * 0.3);
    expect(never).toBeGreaterThan(0);
    expect(quietMinutes).toBeGreaterThan(0);
    expect(quietDays).toBeGreaterThan(0);
    const flaky = t.db().prepare("SELECT count(*) FROM part_simulation WHERE pattern = 'flaky'").pluck().get() as number;
    expect(flaky).toBeGreaterThan(0);
    sim.stop();
  });

  it('says once that its log steps fail (a full disk fails twenty a second), and once that they write again', async () => {
    const db = t.db();
    const lines: string[] = [];
    // Every line written fails, as on a full disk; a temporary trigger lives on this connection only.
    db.exec("CREATE TEMP TRIGGER refuse_logs BEFORE INSERT ON part_logs BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END");
    const sim = startSimulator(db, (line) => lines.push(line), { logRate: 2000 });
    try {
      sim.tick(new Date());
      await new Promise((r) => setTimeout(r, 500));
      expect(lines.filter((l) => l.includes('a log step failed'))).toHaveLength(1);
      db.exec('DROP TRIGGER temp.refuse_logs');
      await new Promise((r) => setTimeout(r, 300));
      expect(lines.filter((l) => l.includes('log steps write again'))).toHaveLength(1);
    } finally {
      sim.stop();
      db.exec('DROP TRIGGER IF EXISTS temp.refuse_logs');
    }
  });

  it('starts with a day of logs: every part that logs and ever connected, within the retention; a quiet part up to when it went quiet; the error burst findable', () => {
    const db = t.db();
    const parts = db
      .prepare(
        `SELECT p.name, p.last_access AS lastAccess, s.pattern, c.n, min(l.time_us) AS first, max(l.time_us) AS last
           FROM robot_parts p LEFT JOIN part_simulation s ON s.part_id = p.id JOIN part_log_counts c ON c.part_id = p.id JOIN part_logs l ON l.part_id = p.id
          GROUP BY p.id`,
      )
      .all() as { name: string; lastAccess: string | null; pattern: string | null; n: number; first: number; last: number }[];
    expect(parts.length).toBeGreaterThan(100);
    const nowUs = Date.now() * 1000;
    for (const p of parts) {
      expect(p.lastAccess).not.toBeNull();
      expect(p.n).toBeLessThanOrEqual(RETAIN_PER_PART);
      expect(p.first).toBeGreaterThanOrEqual(nowUs - (HISTORY_HOURS * 3_600_000_000 + 60_000_000));
      // Quiet parts (no simulation row) stopped logging when they stopped checking in.
      if (p.pattern === null) expect(p.last).toBeLessThanOrEqual(Date.parse(p.lastAccess!) * 1000);
    }
    expect(parts.filter((p) => p.pattern === null).length).toBeGreaterThan(5);
    // The counts the retention relies on are the rows'.
    expect(db.prepare('SELECT sum(n) FROM part_log_counts').pluck().get()).toBe(db.prepare('SELECT count(*) FROM part_logs').pluck().get());
    // One error burst per part that has a past (the live simulation, running meanwhile, writes none of these).
    const bursts = db.prepare('SELECT count(*) AS n, count(DISTINCT part_id) AS parts FROM part_logs WHERE message LIKE ?').get(`${BURST_MARK}%`) as { n: number; parts: number };
    expect(bursts.n).toBe(bursts.parts);
    expect(bursts.n).toBeGreaterThan(100);
  });

  it('logs like robots while live: each part at its own rate, every level, several sources, errors with a stack, a caller and fields; quiet parts log nothing', async () => {
    const db = t.db();
    db.prepare('DELETE FROM part_logs').run();
    const sim = startSimulator(db, () => undefined, { autoStart: false });
    const now = Date.now();
    for (let s = 0; s < 60; s++) sim.tick(new Date(now + s * 1000));
    sim.stop();
    const perPart = db.prepare('SELECT part_id, count(*) AS n FROM part_logs GROUP BY part_id').all() as { part_id: string; n: number }[];
    expect(perPart.length).toBeGreaterThan(20);
    const counts = perPart.map((p) => p.n).sort((a, b) => a - b);
    expect(counts.at(-1)! / counts[0]!).toBeGreaterThan(5); // rates differ widely
    const levels = db.prepare('SELECT level, count(*) AS n FROM part_logs GROUP BY level').all() as { level: string; n: number }[];
    expect(levels.map((l) => l.level).sort()).toEqual(['DEBUG', 'ERROR', 'INFO', 'WARN']);
    expect(db.prepare('SELECT count(DISTINCT source) FROM part_logs').pluck().get()).toBeGreaterThanOrEqual(3);
    const error = db.prepare("SELECT part_id FROM part_logs WHERE level = 'ERROR' LIMIT 1").pluck().get() as string;
    const { logs } = await appCall(t, 'getRobotPartLogs', { robotPartId: error, logLevels: ['ERROR'], numLogEntries: 1 }, owner);
    expect(logs[0]).toMatchObject({ level: 'ERROR', stack: expect.stringContaining('goroutine'), caller: { file: expect.any(String), line: expect.any(Number) }, fields: [expect.objectContaining({ component: expect.any(String) })] });
    // Parts that are not live (quiet, never connected, or without a simulation) logged nothing.
    const silentLogged = db
      .prepare('SELECT count(*) FROM part_logs l JOIN robot_parts p ON p.id = l.part_id WHERE p.last_access IS NULL OR p.last_access < ?')
      .pluck()
      .get(new Date(now - 11_000).toISOString()) as number;
    expect(silentLogged).toBe(0);
    expect(db.prepare('SELECT count(*) FROM part_logs WHERE part_id NOT IN (SELECT part_id FROM part_simulation)').pluck().get()).toBe(0);
  });
});

describe('--log-rate (benchmarks)', () => {
  it('has the live demo parts log exactly that many lines a second in all, in 50 ms steps, spread over the parts', async () => {
    const t = await startTestService({ demo: true });
    try {
      const db = t.db();
      db.prepare('DELETE FROM part_logs').run();
      const sim = startSimulator(db, () => undefined, { autoStart: false, logRate: 50_000 });
      const now = Date.now();
      sim.tick(new Date(now));
      let stored = 0;
      for (let step = 1; step <= 20; step++) stored += sim.logStep(new Date(now + step * 50));
      sim.stop();
      expect(stored).toBe(50_000);
      expect(db.prepare('SELECT count(*) FROM part_logs').pluck().get()).toBe(50_000);
      const parts = db.prepare('SELECT count(DISTINCT part_id) FROM part_logs').pluck().get() as number;
      const live = db.prepare('SELECT count(*) FROM robot_parts WHERE last_access >= ? AND id IN (SELECT part_id FROM part_simulation)').pluck().get(new Date(now - 10_000).toISOString()) as number;
      expect(parts).toBe(live);
      // The lines of a step fall within it.
      const span = db.prepare('SELECT min(time_us), max(time_us) FROM part_logs').raw().get() as [number, number];
      expect(span[0]).toBeGreaterThanOrEqual(now * 1000);
      expect(span[1]).toBeLessThanOrEqual((now + 1000) * 1000);
    } finally {
      await t.stop();
    }
  }, 30_000);
});

describe('--demo-machines', () => {
  it('adds an organization of that many machines, about three parts each, in seconds', async () => {
    const started = Date.now();
    const t = await startTestService({ demo: true, demoMachines: 2000 });
    try {
      expect(Date.now() - started).toBeLessThan(15_000);
      const db = t.db();
      const org = db.prepare("SELECT id FROM organizations WHERE name = 'Megafleet Logistics'").pluck().get() as string;
      const machines = db.prepare('SELECT count(*) FROM robots r JOIN locations l ON l.id = r.location_id WHERE l.organization_id = ?').pluck().get(org) as number;
      const parts = db.prepare('SELECT count(*) FROM robot_parts p JOIN locations l ON l.id = p.location_id WHERE l.organization_id = ?').pluck().get(org) as number;
      expect(machines).toBe(2000);
      expect(parts / machines).toBeGreaterThan(2.5);
      expect(parts / machines).toBeLessThan(3.5);
    } finally {
      await t.stop();
    }
  });
});
