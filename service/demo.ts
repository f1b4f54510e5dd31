/**
 * The demo fleet a new data dir gets with `--demo` (the desktop app's first launch): four robot-fleet
 * operators with nested locations (site → building → floor), about a hundred machines of one to four
 * parts with plausible names, configs (sharing fragments: fragments/demo.ts; some with a few weeks of
 * history by the demo keys) and metadata, one location shared between organizations, and
 * simulated liveness (simulator.ts): some parts check in every few seconds, some come and
 * go, some went quiet minutes or days ago, some never connected. The parts that log start with a day
 * of logs behind them (logs/history.ts), so the log tools have something to show on first launch.
 *
 * `--demo-machines N` (for benchmarks) adds an organization with N more machines. Everything is
 * generated from a fixed seed, so two demo data dirs look alike; ids and times differ.
 *
 * Composition code, like bootstrap.ts and server.ts: the demo fleet spans several domains (an
 * organization's owner, locations, machines, parts), so it may import any of them.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { JsonObject } from '../fleetconfig';
import type { EditorInfo } from '../proto/gen/fleet/app/v1/access';
import type { Organization } from '../proto/gen/fleet/app/v1/orgs';
import { Authorizations } from './access/authorizations';
import { InviteStore } from './access/invites';
import { ApiKeyStore } from './access/keys';
import { UserStore } from './access/users';
import type { Identity } from './permissions/engine';
import { seedDemoFragments } from './fragments/demo';
import { FragmentStore } from './fragments/store';
import { historyLines, type HistoryPart } from './logs/history';
import { LogStore } from './logs/store';
import { fragmentRefRows, moduleRefRows, partFqdn } from './machines/store';
import type { NewOrganizationExtras, OrgStore } from './orgs/store';
import { present } from './errors';

interface Place {
  readonly name: string;
  readonly metadata?: Record<string, unknown>;
  readonly children?: readonly Place[];
  /** Machines directly here: kind and how many. */
  readonly machines?: readonly [Kind, number][];
}

interface DemoOrganization extends NewOrganizationExtras {
  readonly name: string;
  readonly metadata: Record<string, unknown>;
  readonly places: readonly Place[];
}

type Kind = 'amr' | 'picker' | 'forklift' | 'sorter' | 'tug' | 'rover' | 'sprayer' | 'drone' | 'crawler';

/** Per kind: the name prefix, the model, the extra parts (besides `<name>-main`) a machine may have, and its components. */
const KINDS: Record<Kind, { prefix: string; model: string; parts: readonly string[]; components: readonly [string, string][] }> = {
  amr: { prefix: 'amr', model: 'Nimbus AMR-500', parts: ['lidar', 'camera', 'charger'], components: [['base', 'diff-drive'], ['lidar', 'rplidar-s2'], ['imu', 'bno085']] },
  picker: { prefix: 'picker-arm', model: 'Kestrel 6-DoF', parts: ['arm', 'gripper-cam', 'vacuum'], components: [['arm', 'ur5e'], ['gripper', 'robotiq-2f85'], ['camera', 'realsense-d435']] },
  forklift: { prefix: 'forklift', model: 'Atlas AGF-2T', parts: ['mast', 'safety-scanner'], components: [['base', 'ackermann'], ['mast', 'hydraulic-lift'], ['scanner', 'sick-microscan3']] },
  sorter: { prefix: 'sorter', model: 'Tern Sorter 12', parts: ['vision'], components: [['conveyor', 'belt-12'], ['camera', 'basler-ace2']] },
  tug: { prefix: 'tug', model: 'Harbor Tug T4', parts: ['hitch', 'camera', 'gps'], components: [['base', 'skid-steer'], ['gps', 'ublox-f9p'], ['camera', 'oak-d']] },
  rover: { prefix: 'rover', model: 'FieldHand R2', parts: ['camera', 'soil-probe', 'gps'], components: [['base', 'four-wheel'], ['gps', 'ublox-f9p'], ['camera', 'zed-2i']] },
  sprayer: { prefix: 'sprayer', model: 'Mistral S1', parts: ['nozzles', 'camera'], components: [['base', 'tracked'], ['pump', 'diaphragm-12v']] },
  drone: { prefix: 'drone', model: 'Skua Q8', parts: ['gimbal-cam', 'thermal', 'rtk'], components: [['flight-controller', 'px4'], ['camera', 'gimbal-4k'], ['thermal', 'flir-boson']] },
  crawler: { prefix: 'crawler', model: 'Remora Pipe Crawler', parts: ['ut-probe', 'camera'], components: [['base', 'magnetic-tracks'], ['probe', 'ultrasonic']] },
};

/** The organizations of the demo fleet, first one first: plausible robot-fleet operators. */
export const DEMO_ORGANIZATIONS: readonly DemoOrganization[] = [
  {
    name: 'Acme Warehouse Robotics',
    publicNamespace: 'acme-warehouse',
    region: 'us-east',
    cid: 'CRM-10412',
    metadata: { account_manager: 'Dana Whitfield', support_tier: 'gold', contract_ends: '2027-06-30' },
    places: [
      {
        name: 'Reno Fulfillment Center',
        metadata: { address: '1200 Logistics Pkwy, Reno, NV', timezone: 'America/Los_Angeles' },
        children: [
          {
            name: 'Building A',
            children: [
              { name: 'Floor 1', machines: [['amr', 6], ['picker', 3]] },
              { name: 'Floor 2', machines: [['amr', 5], ['sorter', 2]] },
            ],
          },
          { name: 'Building B', children: [{ name: 'Mezzanine', machines: [['amr', 4], ['forklift', 3]] }] },
        ],
      },
      {
        name: 'Columbus DC',
        metadata: { address: '88 Rickenbacker Dr, Columbus, OH', timezone: 'America/New_York' },
        children: [{ name: 'Main Hall', machines: [['amr', 7], ['forklift', 2], ['sorter', 2]] }],
      },
    ],
  },
  {
    name: 'Harborline Logistics AMR',
    region: 'eu-west',
    cid: 'CRM-10577',
    metadata: { account_manager: 'Joris de Vries', support_tier: 'silver' },
    places: [
      {
        name: 'Port of Rotterdam',
        metadata: { address: 'Maasvlakte 2, Rotterdam', timezone: 'Europe/Amsterdam' },
        children: [{ name: 'Terminal 2', children: [{ name: 'Yard East', machines: [['tug', 6]] }, { name: 'Yard West', machines: [['tug', 5], ['forklift', 2]] }] }],
      },
      { name: 'Antwerp Depot', metadata: { timezone: 'Europe/Brussels' }, machines: [['amr', 8], ['forklift', 4]] },
    ],
  },
  {
    name: 'Northfield Agri-Bots',
    publicNamespace: 'northfield-agri',
    region: 'us-central',
    metadata: { account_manager: 'Priya Raman', support_tier: 'gold', pilot: true },
    places: [
      {
        name: 'Northfield Farm',
        metadata: { address: 'County Rd 12, Northfield, MN', timezone: 'America/Chicago', acres: 640 },
        children: [
          { name: 'Greenhouse 1', machines: [['rover', 4], ['sprayer', 2]] },
          { name: 'Greenhouse 2', machines: [['rover', 3], ['sprayer', 2]] },
          { name: 'Orchard', machines: [['rover', 5]] },
        ],
      },
      { name: 'Test Field', machines: [['rover', 2], ['drone', 2]] },
    ],
  },
  {
    name: 'Polaris Inspection Drones',
    region: 'ap-southeast',
    metadata: { account_manager: 'Wei Lin', support_tier: 'bronze' },
    places: [
      { name: 'Singapore Hangar', metadata: { timezone: 'Asia/Singapore' }, children: [{ name: 'Bay 1', machines: [['drone', 5]] }, { name: 'Bay 2', machines: [['drone', 4], ['crawler', 2]] }] },
      { name: 'Offshore Platform K-7', metadata: { timezone: 'Asia/Singapore', helideck: true }, machines: [['drone', 3], ['crawler', 3]] },
    ],
  },
];

/** The location of the first organization shared with the second (a third-party logistics partner). */
const SHARED = { from: 'Acme Warehouse Robotics', location: 'Columbus DC', with: 'Harborline Logistics AMR' };

/** A small deterministic PRNG (mulberry32), so every demo fleet looks the same. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What a extra part (besides the main one) of each name is. */
const EXTRA_PART_TYPES: Record<string, string> = {
  lidar: 'camera',
  camera: 'camera',
  'gripper-cam': 'camera',
  'safety-scanner': 'camera',
  vision: 'camera',
  'gimbal-cam': 'camera',
  thermal: 'camera',
  charger: 'power_sensor',
  arm: 'arm',
  vacuum: 'gripper',
  mast: 'motor',
  hitch: 'servo',
  gps: 'movement_sensor',
  rtk: 'movement_sensor',
  'soil-probe': 'sensor',
  'ut-probe': 'sensor',
  nozzles: 'generic',
};

/** A main part's config, and the changes that led to it: when, by whom, and the config each replaced. */
export interface MainConfig {
  readonly config: JsonObject;
  readonly previous: readonly { readonly config: JsonObject; readonly editor: EditorInfo; readonly daysAgo: number }[];
  /** Someone flagged it for restart this long ago (it has checked in since, which cleared the flag). */
  readonly restart?: { readonly editor: EditorInfo; readonly daysAgo: number };
}

/** Chooses a machine's main part config, by kind and the location it is in. */
export type ConfigPlan = (kind: Kind, place: string, agentVersion: string) => MainConfig;

class Seeder {
  private readonly random = prng(0x5eed);
  private readonly now: Date;
  private readonly insertLocation;
  private readonly insertRobot;
  private readonly insertPart;
  private readonly insertSecret;
  private readonly insertLocationSecret;
  private readonly insertSimulation;
  private readonly insertHistory;
  private readonly insertFragmentRef;
  private readonly insertModuleRef;
  private serial = 0;
  /** The configs of the organization being seeded. */
  plan: ConfigPlan = (_kind, _place, agentVersion) => ({ config: { agent: { version: agentVersion } }, previous: [] });
  /** How many parts besides the main one a machine gets (at most what its kind has). */
  extraParts: readonly [number, number] = [0, 3];
  /** Whether simulated parts log (lines a minute drawn per part); off for the benchmark fleet. */
  logs = true;
  /** A stream of its own, so that log rates leave the rest of the demo fleet as it was. */
  private readonly logRandom = prng(0x1095);
  /** A stream of its own for secret rotations (added later: the rest of the demo fleet stays as it was). */
  private readonly secretRandom = prng(0x5ec2);
  /** The parts that have logged before the fleet was set up (see {@link Seeder.writeHistory}). */
  private readonly logged: HistoryPart[] = [];

  constructor(db: Database.Database, now: Date) {
    this.now = now;
    this.insertLocation = db.prepare('INSERT INTO locations (id, organization_id, parent_location_id, name, created_on, metadata) VALUES (?, ?, ?, ?, ?, ?)');
    this.insertRobot = db.prepare('INSERT INTO robots (id, location_id, name, created_on, metadata) VALUES (?, ?, ?, ?, ?)');
    this.insertPart = db.prepare(
      `INSERT INTO robot_parts (id, robot_id, location_id, name, main_part, config_json, fqdn, local_fqdn, last_access, created_on, last_updated, metadata)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.insertSecret = db.prepare('INSERT INTO part_secrets (id, part_id, secret, created_on) VALUES (?, ?, ?, ?)');
    this.insertLocationSecret = db.prepare('INSERT INTO location_secrets (id, location_id, secret, created_on) VALUES (?, ?, ?, ?)');
    this.insertSimulation = db.prepare('INSERT INTO part_simulation (part_id, pattern, interval_s, period_s, phase_s, log_per_min) VALUES (?, ?, ?, ?, ?, ?)');
    this.insertFragmentRef = db.prepare('INSERT INTO part_fragment_refs (part_id, robot_id, position, fragment_id, version) VALUES (?, ?, ?, ?, ?)');
    this.insertModuleRef = db.prepare('INSERT INTO part_module_refs (part_id, module_id) VALUES (?, ?)');
    this.insertHistory = db.prepare(
      `INSERT INTO robot_part_history (part_id, edited_on, editor_type, editor_id, editor_name, name, config_json, main_part, marked_for_restart, secrets, last_updated)
       VALUES (?, ?, ?, ?, ?, ?, ?, 1, 0, ?, ?)`,
    );
  }

  private pick<T>(items: readonly T[]): T {
    return present(items[Math.floor(this.random() * items.length)], 'a picked item');
  }

  private between(min: number, max: number): number {
    return min + Math.floor(this.random() * (max - min + 1));
  }

  private ago(ms: number): string {
    return new Date(this.now.getTime() - ms).toISOString();
  }

  location(orgId: string, parentId: string | null, name: string, metadata: Record<string, unknown> = {}): string {
    const id = randomUUID();
    const created = this.ago(this.between(200, 900) * 86_400_000);
    this.insertLocation.run(id, orgId, parentId, name, created, JSON.stringify(metadata));
    // Every location starts with a secret, as LocationStore.create gives one; about half were rotated
    // since (the old secret deleted once its machines took the new one), as an operator's fleet is.
    const rotated = this.secretRandom() < 0.5 ? this.ago((10 + Math.floor(this.secretRandom() * 170)) * 86_400_000) : created;
    this.insertLocationSecret.run(randomUUID(), id, randomBytes(24).toString('base64url'), rotated);
    return id;
  }

  /** A machine of `kind` in `place` with one to four parts and a liveness pattern of its own. */
  machine(locationId: string, place: string, kind: Kind, code: string): void {
    const spec = KINDS[kind];
    const id = randomUUID();
    const name = `${spec.prefix}-${code}`;
    const created = this.ago(this.between(30, 700) * 86_400_000);
    this.serial += 1;
    this.insertRobot.run(
      id,
      locationId,
      name,
      created,
      JSON.stringify({ model: spec.model, serial: `${spec.prefix.toUpperCase().replace(/-/g, '')}-${String(100000 + this.serial * 37).slice(-6)}`, commissioned: created.slice(0, 10) }),
    );
    const extras = spec.parts.slice(0, Math.min(spec.parts.length, this.between(...this.extraParts)));
    // Machines: 45 % steady, 20 % coming and going, 25 % quiet for minutes to days, 10 % never connected.
    const roll = this.random();
    const pattern = roll < 0.45 ? 'steady' : roll < 0.65 ? 'flaky' : roll < 0.9 ? 'quiet' : 'never';
    const quietFor = this.pick([3 * 60_000, 17 * 60_000, 2 * 3_600_000, 26 * 3_600_000, 4 * 86_400_000]) + this.between(0, 60_000);
    const phase = this.between(0, 120);
    for (const [index, suffix] of ['main', ...extras].entries()) {
      const partId = randomUUID();
      const partName = `${name}-${suffix}`;
      // The agent version is drawn from the fleet's own stream, as it always was, so the rest of the demo stays as it was.
      const main = index === 0 ? this.plan(kind, place, `1.${this.between(2, 9)}.${this.between(0, 12)}`) : undefined;
      const config: JsonObject = main?.config ?? { components: [{ name: suffix, type: EXTRA_PART_TYPES[suffix] ?? 'generic', model: spec.model }] };
      // A config's history ends at its newest change: the part's last_updated.
      const changes = main?.previous ?? [];
      const lastUpdated = changes.length === 0 ? created : this.ago(Math.min(...changes.map((c) => c.daysAgo)) * 86_400_000);
      // A non-main part of a live machine is sometimes down on its own.
      const own = index > 0 && pattern !== 'never' && this.random() < 0.15 ? 'quiet' : pattern;
      const lastAccess = own === 'never' ? null : own === 'quiet' ? this.ago(quietFor + this.between(0, 30_000)) : this.ago(this.between(0, 4_000));
      this.insertPart.run(
        partId,
        id,
        locationId,
        partName,
        index === 0 ? 1 : 0,
        // Laid out as a person (or this app's editor) saves a config, not as one line.
        JSON.stringify(config, null, 2),
        partFqdn(partName, partId),
        `${partName}.local`,
        lastAccess,
        created,
        lastUpdated,
        JSON.stringify({ firmware: `${this.between(3, 5)}.${this.between(0, 9)}.${this.between(0, 20)}` }),
      );
      const secretId = randomUUID();
      this.insertSecret.run(secretId, partId, randomBytes(24).toString('base64url'), created);
      if (main !== undefined) this.history(partId, partName, created, secretId, main);
      // The index of what configs name, as the machines store keeps it for the parts it writes.
      for (const r of fragmentRefRows(config)) this.insertFragmentRef.run(partId, id, r.position, r.fragmentId, r.version);
      for (const moduleId of moduleRefRows(config)) this.insertModuleRef.run(partId, moduleId);
      // Log rates vary by part: a chatty main part, quieter extras, one in five silent.
      const logPerMin = !this.logs || this.logRandom() < 0.2 ? 0 : Math.round(index === 0 ? 6 + this.logRandom() * 84 : 2 + this.logRandom() * 28);
      // Every part that ever connected has a past to show, those that went quiet up to when they did.
      if (logPerMin > 0 && lastAccess !== null) this.logged.push({ partId, name: partName, perMin: logPerMin, quietSinceUs: own === 'quiet' ? Date.parse(lastAccess) * 1000 : null });
      if (own === 'steady') this.insertSimulation.run(partId, 'steady', this.between(2, 4), 1, this.between(0, 9), logPerMin);
      if (own === 'flaky') this.insertSimulation.run(partId, 'flaky', 2, this.between(20, 60), phase, logPerMin);
    }
  }

  /**
   * The history a main part's config went through: an entry per change (the state before it: the
   * previous config, stamped with the change before), and one for a restart someone asked for.
   */
  private history(partId: string, name: string, created: string, secretId: string, main: MainConfig): void {
    const secrets = JSON.stringify([{ id: secretId, created_on: created }]);
    let before = created;
    const changes = [...main.previous].sort((a, b) => b.daysAgo - a.daysAgo);
    for (const change of changes) {
      const at = this.ago(change.daysAgo * 86_400_000);
      this.insertHistory.run(partId, at, change.editor.identityType, change.editor.identityId, change.editor.displayName, name, JSON.stringify(change.config), secrets, before);
      before = at;
    }
    if (main.restart !== undefined) {
      const e = main.restart.editor;
      this.insertHistory.run(partId, this.ago(main.restart.daysAgo * 86_400_000), e.identityType, e.identityId, e.displayName, name, JSON.stringify(main.config), secrets, before);
    }
  }

  /**
   * The logs of the parts seeded so far, over the last day (service/logs/history.ts), part by part in
   * time order (each part's index grows at its end), loaded at once in the caller's transaction.
   * Answers how many lines it wrote.
   */
  writeHistory(logs: LogStore): number {
    // A stream of its own, so that the history leaves the rest of the demo fleet as it was.
    const random = prng(0x4157);
    const nowUs = this.now.getTime() * 1000;
    const lines = this.logged.flatMap((part) => historyLines(part, nowUs, random));
    logs.load(lines);
    return lines.length;
  }

  places(orgId: string, parentId: string | null, places: readonly Place[], counters: Map<Kind, number>): Map<string, string> {
    const ids = new Map<string, string>();
    for (const place of places) {
      const id = this.location(orgId, parentId, place.name, place.metadata);
      ids.set(place.name, id);
      for (const [kind, count] of place.machines ?? []) {
        for (let i = 0; i < count; i++) {
          const n = (counters.get(kind) ?? 0) + 1;
          counters.set(kind, n);
          this.machine(id, place.name, kind, String(n).padStart(3, '0'));
        }
      }
      for (const [name, childId] of this.places(orgId, id, place.children ?? [], counters)) ids.set(name, childId);
    }
    return ids;
  }
}

/** The extra organization `--demo-machines N` adds: N machines over sites of five buildings of four floors. */
function megafleet(machines: number): Place[] {
  const floors = Math.max(1, Math.ceil(machines / 50));
  const sites = Math.max(1, Math.ceil(floors / 20));
  // Kinds with three extra parts: with two to four parts each, N machines have about 3N parts.
  const kinds: Kind[] = ['amr', 'amr', 'picker', 'tug', 'drone', 'rover'];
  let left = machines;
  let floorNo = 0;
  const out: Place[] = [];
  for (let s = 1; s <= sites; s++) {
    const buildings: Place[] = [];
    for (let b = 1; b <= 5 && left > 0; b++) {
      const levels: Place[] = [];
      for (let f = 1; f <= 4 && left > 0; f++) {
        const here = Math.min(left, Math.ceil(machines / floors));
        left -= here;
        floorNo += 1;
        const mix: [Kind, number][] = kinds.map((k, i) => [k, Math.floor(here / kinds.length) + (i < here % kinds.length ? 1 : 0)] as [Kind, number]).filter(([, n]) => n > 0);
        // Kinds repeat in the list: merge them so each kind's machines are numbered once.
        const merged = new Map<Kind, number>();
        for (const [k, n] of mix) merged.set(k, (merged.get(k) ?? 0) + n);
        levels.push({ name: `Floor ${f}`, machines: [...merged] });
      }
      buildings.push({ name: `Building ${String.fromCharCode(64 + b)}`, children: levels });
    }
    out.push({ name: `Site ${String(s).padStart(2, '0')}`, metadata: { floors: floorNo }, children: buildings });
  }
  return out;
}

export interface DemoOptions {
  /** Extra machines in an extra organization, for benchmarks (`--demo-machines N`). */
  readonly machines?: number;
  /**
   * Whether the parts start with a day of logs (default true); off where the parts log at a
   * benchmark's fixed rate (`--log-rate`), whose figures count only what the simulation writes.
   */
  readonly logHistory?: boolean;
  readonly now?: Date;
}

const ACME = 'Acme Warehouse Robotics';
const HARBORLINE = 'Harborline Logistics AMR';
const NORTHFIELD = 'Northfield Agri-Bots';
const POLARIS = 'Polaris Inspection Drones';
const MEGAFLEET = 'Megafleet Logistics';

/**
 * The keys that edited the demo fleet's configs and fragments over the last weeks (people's laptops,
 * a CI deployer, a field technician's tablet), with roles in their organizations. Their secrets are
 * thrown away: they are other people's keys, there to be named in history entries.
 */
const DEMO_KEYS: readonly { readonly name: string; readonly roles: readonly (readonly [string, 'owner' | 'operator'])[] }[] = [
  { name: 'dana-laptop', roles: [[ACME, 'owner']] },
  { name: 'ci-deploy', roles: [[ACME, 'owner'], [NORTHFIELD, 'owner'], [MEGAFLEET, 'owner']] },
  { name: 'field-tech-tablet', roles: [[ACME, 'operator']] },
  { name: 'harbor-ops', roles: [[HARBORLINE, 'owner']] },
  { name: 'priya-workstation', roles: [[NORTHFIELD, 'owner']] },
  { name: 'polaris-ops', roles: [[POLARIS, 'owner']] },
];

/** A demo user's role: on an organization, a location (by name) or a machine (by name), in organization `org`. */
type DemoRole = readonly [org: string, on: 'organization' | 'location' | 'robot', name: string | null, role: 'owner' | 'operator'];

/**
 * The people of the demo fleet: members with roles at every scope (organization, location, machine),
 * one of them in two organizations. They have no keys: `fleet-service --add-user <email>` gives one.
 */
export const DEMO_USERS: readonly { readonly email: string; readonly name: string; readonly roles: readonly DemoRole[]; readonly signedInHoursAgo: number | null }[] = [
  { email: 'dana.whitfield@acme-robotics.example', name: 'Dana Whitfield', roles: [[ACME, 'organization', null, 'owner']], signedInHoursAgo: 2 },
  { email: 'marco.reyes@acme-robotics.example', name: 'Marco Reyes', roles: [[ACME, 'organization', null, 'operator']], signedInHoursAgo: 26 },
  { email: 'jess.park@acme-robotics.example', name: 'Jess Park', roles: [[ACME, 'location', 'Reno Fulfillment Center', 'owner']], signedInHoursAgo: 5 * 24 },
  // Given a role last week, not signed in yet: what "never" is for.
  { email: 'sam.okafor@acme-robotics.example', name: 'Sam Okafor', roles: [[ACME, 'location', 'Building A', 'operator']], signedInHoursAgo: null },
  { email: 'lena.voss@northfield.example', name: 'Lena Voss', roles: [[NORTHFIELD, 'organization', null, 'owner'], [ACME, 'robot', 'amr-001', 'operator']], signedInHoursAgo: 9 },
  { email: 'tomas.berg@harborline.example', name: 'Tomás Berg', roles: [[HARBORLINE, 'robot', 'tug-001', 'owner'], [HARBORLINE, 'location', 'Yard West', 'operator']], signedInHoursAgo: 3 * 24 },
];

/** Pending invites of the demo fleet: one sent by mail (its link was never delivered: resend it), one to be granted at sign-in. */
export const DEMO_INVITES: readonly { readonly org: string; readonly email: string; readonly sendEmail: boolean; readonly roles: readonly DemoRole[] }[] = [
  { org: ACME, email: 'ops-lead@acme-robotics.example', sendEmail: true, roles: [[ACME, 'location', 'Columbus DC', 'operator']] },
  { org: NORTHFIELD, email: 'agronomist@northfield.example', sendEmail: false, roles: [[NORTHFIELD, 'organization', null, 'operator']] },
];

/** The configs of an organization's machines: which fragments (at which versions) each kind uses, mods, and the changes that led there. */
function configPlan(orgName: string, fragments: ReadonlyMap<string, string>, editors: ReadonlyMap<string, EditorInfo>, random: () => number): ConfigPlan {
  const id = (key: string) => present(fragments.get(key), `demo fragment ${key}`);
  const editor = (name: string) => present(editors.get(name), `demo key ${name}`);
  const days = (min: number, max: number) => min + random() * (max - min);
  const inline = (kind: Kind): JsonObject => ({ components: KINDS[kind].components.map(([type, model]) => ({ name: type, type, model })) });
  return (kind, place, agentVersion): MainConfig => {
    const own = { agent: { version: agentVersion } };
    switch (`${orgName}/${kind}`) {
      case `${ACME}/amr`: {
        const roll = random();
        const amr = roll < 0.55 ? id('acme-amr') : { id: id('acme-amr'), version: roll < 0.75 ? 'stable' : roll < 0.85 ? '2' : 'canary' };
        const bumper = { name: 'bumper', type: 'input_controller', model: 'gpio', attributes: { board: 'pi', pins: [17, 27] } };
        // Slower on the mezzanine; a few with a faster lidar scan.
        const mods =
          place === 'Mezzanine'
            ? [{ fragment_id: id('acme-amr'), mods: [{ $set: { 'components.base.attributes.max_speed_mps': 0.8 } }] }]
            : random() < 0.15
              ? [{ fragment_id: id('acme-lidar'), mods: [{ $set: { 'components.lidar.attributes.scan_rate_hz': 20 } }] }]
              : [];
        const config: JsonObject = { ...own, components: [bumper], fragments: [amr], ...(mods.length > 0 ? { fragment_mods: mods } : {}) };
        if (random() >= 0.35) return { config, previous: [] };
        // Before the shared base: the whole base inline; then pinned to its first revision.
        return {
          config,
          previous: [
            { config: { ...own, components: [bumper, ...(inline('amr').components as JsonObject[])] }, editor: editor('dana-laptop'), daysAgo: days(18, 25) },
            { config: { ...own, components: [bumper], fragments: [{ id: id('acme-amr'), version: '1' }] }, editor: editor('ci-deploy'), daysAgo: days(3, 12) },
          ],
          ...(random() < 0.4 ? { restart: { editor: editor('field-tech-tablet'), daysAgo: days(0.1, 2) } } : {}),
        };
      }
      case `${ACME}/picker`: {
        const config: JsonObject = { ...own, fragments: [id('acme-picker')], components: [{ name: 'tote-sensor', type: 'sensor', model: 'vl53l1x', attributes: { i2c_bus: '1' } }] };
        return random() < 0.3 ? { config, previous: [{ config: { ...own, ...inline('picker') }, editor: editor('dana-laptop'), daysAgo: days(9, 20) }] } : { config, previous: [] };
      }
      case `${ACME}/forklift`:
        return { config: { ...own, fragments: [id('acme-forklift')], components: [{ name: 'mast', type: 'motor', model: 'hydraulic-lift', attributes: { max_height_mm: 4500 } }] }, previous: [] };
      case `${ACME}/sorter`:
        return {
          config: {
            ...own,
            components: [
              { name: 'conveyor', type: 'motor', model: 'belt-12', attributes: { max_rpm: 120 } },
              { name: 'camera', type: 'camera', model: 'basler-ace2', attributes: { exposure_us: 800 } },
            ],
            services: [{ name: 'wms', type: 'generic', model: 'acme-warehouse:wms:bridge', attributes: { endpoint: 'https://wms.acme.internal/api', site: 'CMH1' } }],
            modules: [{ type: 'registry', name: 'wms-bridge', module_id: 'acme-warehouse:wms-bridge', version: '0.9.0' }],
          },
          previous: [],
        };
      case `${HARBORLINE}/tug`: {
        const config: JsonObject = { ...own, fragments: [random() < 0.4 ? { id: id('harbor-tug'), version: 'stable' } : id('harbor-tug')] };
        return random() < 0.25 ? { config, previous: [{ config: { ...own, fragments: [{ id: id('harbor-tug'), version: 'stable' }] }, editor: editor('harbor-ops'), daysAgo: days(2, 6) }] } : { config, previous: [] };
      }
      case `${HARBORLINE}/amr`:
        // Antwerp's AMRs use Acme's public lidar block at its stable tag.
        return {
          config: {
            ...own,
            components: [
              { name: 'base', type: 'base', model: 'wheeled', attributes: { width_mm: 480, wheel_circumference_mm: 600, max_speed_mps: 1.2 } },
              { name: 'imu', type: 'movement_sensor', model: 'bno085' },
            ],
            fragments: [{ id: id('acme-lidar'), version: 'stable' }],
          },
          previous: [],
        };
      case `${NORTHFIELD}/rover`: {
        // The test field's rovers came after the organization's default fragments.
        const rover = random() < 0.5 ? id('north-rover') : { id: id('north-rover'), version: 'stable' };
        const config: JsonObject = { ...own, fragments: place === 'Test Field' ? [id('north-telemetry'), rover] : [rover] };
        return random() < 0.3 ? { config, previous: [{ config: { ...own, fragments: [{ id: id('north-rover'), version: '1' }] }, editor: editor('priya-workstation'), daysAgo: days(10, 24) }] } : { config, previous: [] };
      }
      case `${NORTHFIELD}/sprayer`:
        return {
          config: { ...own, components: [{ name: 'pump', type: 'motor', model: 'diaphragm-12v', attributes: { max_lpm: 8 } }, { name: 'base', type: 'base', model: 'tracked' }], fragments: [id('north-rtk')] },
          previous: [],
        };
      case `${NORTHFIELD}/drone`:
        return { config: { ...own, components: [{ name: 'fc', type: 'movement_sensor', model: 'px4' }], fragments: [id('north-telemetry'), { id: id('north-rtk'), version: 'stable' }] }, previous: [] };
      case `${POLARIS}/drone`: {
        const config: JsonObject = { ...own, fragments: [id('polaris-flight')] };
        return random() < 0.3 ? { config, previous: [{ config: { ...own, fragments: [{ id: id('polaris-flight'), version: '1' }] }, editor: editor('polaris-ops'), daysAgo: days(4, 8) }] } : { config, previous: [] };
      }
      case `${MEGAFLEET}/amr`:
      case `${MEGAFLEET}/picker`:
      case `${MEGAFLEET}/tug`:
      case `${MEGAFLEET}/drone`:
      case `${MEGAFLEET}/rover`:
        return { config: { ...own, fragments: [id(`mega-${kind}`)] }, previous: [] };
      default:
        return { config: { ...own, ...inline(kind) }, previous: [] };
    }
  };
}

/**
 * Fill a new data dir with the demo fleet, all owned by `owner`, in the order of
 * {@link DEMO_ORGANIZATIONS}: organizations, the keys that edited them, their fragments (and
 * Northfield's default fragments), then their locations and machines, each main part with a config
 * that uses the fragments and some with a few weeks of history. Runs inside the caller's transaction.
 */
export function seedDemoFleet(db: Database.Database, orgs: OrgStore, owner: Identity, options: DemoOptions = {}): Organization[] {
  const now = options.now ?? new Date();
  const seeder = new Seeder(db, now);
  const created: Organization[] = [];
  const locationIds = new Map<string, Map<string, string>>();
  const all = [...DEMO_ORGANIZATIONS];
  if (options.machines !== undefined && options.machines > 0) {
    all.push({ name: MEGAFLEET, region: 'us-west', cid: 'CRM-BENCH', metadata: { purpose: 'benchmark fleet' }, places: megafleet(options.machines) });
  }
  for (const { name, metadata, ...extras } of all) {
    const { places: _places, ...fields } = extras;
    const org = orgs.create(name, owner, fields);
    orgs.setMetadata(org.id, JSON.stringify(metadata));
    created.push(org);
  }
  const orgId = (name: string) => created.find((o) => o.name === name)?.id;

  const keys = new ApiKeyStore(db);
  const authorizations = new Authorizations(db);
  const editors = new Map<string, EditorInfo>();
  for (const k of DEMO_KEYS) {
    const roles = k.roles.flatMap(([org, role]) => {
      const id = orgId(org);
      return id === undefined ? [] : [{ id, role }];
    });
    if (roles.length === 0) continue;
    const key = keys.prepare(k.name);
    keys.insert(key, new Date(now.getTime() - 90 * 86_400_000));
    for (const r of roles) authorizations.grant({ type: '', id: key.id }, { organizationId: r.id, resourceType: 'organization', resourceId: r.id, role: r.role }, now);
    editors.set(k.name, { identityType: '', identityId: key.id, displayName: k.name });
  }
  // Registry ids of organizations without a public namespace are `<organization id>:<name>`.
  const registryIds = new Map<string, string>();
  const harborline = orgId(HARBORLINE);
  const polaris = orgId(POLARIS);
  if (harborline !== undefined) registryIds.set('harborline-tug-dispatch', `${harborline}:tug-dispatch`);
  if (polaris !== undefined) registryIds.set('polaris-thermal-anomaly', `${polaris}:thermal-anomaly`);
  const fragments = seedDemoFragments(new FragmentStore(db), created, editors, now, registryIds);
  const northfield = orgId(NORTHFIELD);
  const telemetry = fragments.get('north-telemetry');
  if (northfield !== undefined && telemetry !== undefined) orgs.update(northfield, { defaultFragments: [{ fragmentId: telemetry }] });

  // A stream of its own, so that configs leave the rest of the demo fleet as it was.
  const configRandom = prng(0xc0f1);
  for (const [index, { name, places }] of all.entries()) {
    const org = present(created[index], `organization ${name}`);
    seeder.extraParts = name === MEGAFLEET ? [1, 3] : [0, 3];
    seeder.logs = name !== MEGAFLEET;
    seeder.plan = configPlan(name, fragments, editors, configRandom);
    // Machine numbers count per organization and kind: amr-001, amr-002, …
    locationIds.set(name, seeder.places(org.id, null, places, new Map()));
  }
  const from = locationIds.get(SHARED.from)?.get(SHARED.location);
  const partner = created.find((o) => o.name === SHARED.with);
  if (from !== undefined && partner !== undefined) {
    db.prepare('INSERT INTO location_shares (location_id, organization_id, created_at) VALUES (?, ?, ?)').run(from, partner.id, now.toISOString());
  }
  seedDemoPeople(db, orgId, (org, name) => locationIds.get(org)?.get(name), now);
  // A key that edited a config or a fragment was used then: the keys page says when, not "never".
  db.prepare(
    `UPDATE api_keys SET last_used_at = (
       SELECT MAX(at) FROM (SELECT edited_on AS at FROM robot_part_history WHERE editor_id = api_keys.id
                            UNION ALL SELECT created_on FROM fragment_revisions WHERE editor_id = api_keys.id))
     WHERE id IN (SELECT value FROM json_each(?))`,
  ).run(JSON.stringify([...editors.values()].map((e) => e.identityId)));
  if (options.logHistory !== false) seeder.writeHistory(new LogStore(db));
  return created;
}

/** The demo users with their roles, and the pending invites. */
function seedDemoPeople(db: Database.Database, orgId: (name: string) => string | undefined, locationId: (org: string, name: string) => string | undefined, now: Date): void {
  const users = new UserStore(db, new ApiKeyStore(db));
  const authorizations = new Authorizations(db);
  const resolve = ([org, on, name, role]: DemoRole): { organizationId: string; resourceType: 'organization' | 'location' | 'robot'; resourceId: string; role: 'owner' | 'operator' } | undefined => {
    const organizationId = orgId(org);
    if (organizationId === undefined) return undefined;
    const resourceId =
      on === 'organization'
        ? organizationId
        : on === 'location'
          ? locationId(org, name ?? '')
          : (db.prepare('SELECT r.id FROM robots r JOIN locations l ON l.id = r.location_id WHERE l.organization_id = ? AND r.name = ? ORDER BY r.id LIMIT 1').pluck().get(organizationId, name) as string | undefined);
    return resourceId === undefined ? undefined : { organizationId, resourceType: on, resourceId, role };
  };
  for (const u of DEMO_USERS) {
    const user = users.create(u.email, u.name, new Date(now.getTime() - 60 * 86_400_000));
    if (u.signedInHoursAgo !== null) users.recordLogin(user.id, new Date(now.getTime() - u.signedInHoursAgo * 3_600_000));
    for (const r of u.roles) {
      const grant = resolve(r);
      if (grant !== undefined) authorizations.grant({ type: 'user', id: user.id }, grant, now);
    }
  }
  const invites = new InviteStore(db);
  for (const i of DEMO_INVITES) {
    const org = orgId(i.org);
    const roles = i.roles.flatMap((r) => {
      const g = resolve(r);
      return g === undefined ? [] : [{ role: g.role, resourceType: g.resourceType, resourceId: g.resourceId }];
    });
    if (org !== undefined && roles.length > 0) invites.create(org, i.email, i.sendEmail, roles, new Date(now.getTime() - 2 * 86_400_000));
  }
}
