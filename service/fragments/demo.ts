/**
 * The demo fleet's fragments: config blocks shared by families of machines, with a few weeks of
 * revisions made by different keys, and tags. Acme publishes its RPLIDAR block (public, so Harborline
 * and the benchmark fleet use it too) and nests it in its AMR base; Northfield nests its public RTK GPS
 * block in its rover base; the benchmark fleet's kind blocks all nest one base. Each spec's revisions
 * are written in order with their own times and editors, as UpdateFragment would have written them.
 * Runs inside the demo's transaction, before the machines that use them (service/demo.ts).
 */
import type { JsonObject } from '../../fleetconfig';
import type { EditorInfo } from '../../proto/gen/fleet/app/v1/access';
import { FragmentVisibility } from '../../proto/gen/fleet/app/v1/fragments';
import type { Organization } from '../../proto/gen/fleet/app/v1/orgs';
import { present } from '../errors';
import type { FragmentStore } from './store';

const DAY = 86_400_000;

/** Another demo fragment's id, by its key, as a spec's config asks for it. */
type Ids = (key: string) => string;

interface DemoFragment {
  /** How the demo refers to it. */
  readonly key: string;
  readonly org: string;
  readonly name: string;
  readonly visibility: FragmentVisibility;
  /** Oldest first: when, by which demo key (by name), and the config that revision holds. */
  readonly revisions: readonly { readonly daysAgo: number; readonly editor: string; readonly config: (ids: Ids) => JsonObject; readonly name?: string }[];
  /** Tags: name, revision, and when it was set. */
  readonly tags?: readonly { readonly tag: string; readonly revision: number; readonly daysAgo: number }[];
}

const ACME = 'Acme Warehouse Robotics';
const HARBORLINE = 'Harborline Logistics AMR';
const NORTHFIELD = 'Northfield Agri-Bots';
const POLARIS = 'Polaris Inspection Drones';
export const MEGAFLEET = 'Megafleet Logistics';

const lidar = (version: string, rate: number, extra: JsonObject = {}): JsonObject => ({
  components: [{ name: 'lidar', type: 'camera', model: 'rplidar-s2', attributes: { device_path: '/dev/ttyUSB0', scan_rate_hz: rate, ...extra } }],
  services: [{ name: 'slam', type: 'slam', model: 'acme-warehouse:slam:cartographer-lite', attributes: { camera: 'lidar', map_rate_sec: 60, use_live_data: true }, depends_on: ['lidar'] }],
  modules: [{ type: 'registry', name: 'lidar-slam', module_id: 'acme-warehouse:lidar-slam', version }],
});

const amrBase = (ids: Ids, speed: number, lidarVersion: string | null, extra: JsonObject = {}): JsonObject => ({
  components: [
    { name: 'base', type: 'base', model: 'wheeled', attributes: { width_mm: 520, wheel_circumference_mm: 628, max_speed_mps: speed, left: ['left-motor'], right: ['right-motor'] } },
    { name: 'left-motor', type: 'motor', model: 'roboclaw', attributes: { channel: 1, ticks_per_rotation: 2048 } },
    { name: 'right-motor', type: 'motor', model: 'roboclaw', attributes: { channel: 2, ticks_per_rotation: 2048 } },
    { name: 'imu', type: 'movement_sensor', model: 'bno085', attributes: { i2c_bus: '1' } },
  ],
  services: [{ name: 'nav', type: 'navigation', model: 'builtin', attributes: { base: 'base', movement_sensor: 'imu', obstacle_detectors: [{ camera: 'lidar' }] } }],
  fragments: [lidarVersion === null ? ids('acme-lidar') : { id: ids('acme-lidar'), version: lidarVersion }],
  ...extra,
});

const rtk = (rate: number): JsonObject => ({ components: [{ name: 'gps', type: 'movement_sensor', model: 'gps-nmea-rtk-serial', attributes: { serial_path: '/dev/ttyACM0', serial_baud_rate: 115200, ntrip_url: 'http://rtk2go.com:2101/NORTHFIELD', rate_hz: rate } }] });

const megaKind = (ids: Ids, component: JsonObject): JsonObject => ({ components: [component], fragments: [ids('mega-base')] });

const FRAGMENTS: readonly DemoFragment[] = [
  {
    key: 'acme-lidar',
    org: ACME,
    name: 'RPLIDAR S2 + SLAM',
    visibility: FragmentVisibility.FRAGMENT_VISIBILITY_PUBLIC,
    revisions: [
      { daysAgo: 26, editor: 'ci-deploy', config: () => lidar('1.1.0', 10) },
      { daysAgo: 17, editor: 'dana-laptop', config: () => lidar('1.1.0', 15) },
      { daysAgo: 5, editor: 'ci-deploy', config: () => lidar('1.2.0', 15, { motor_pwm: 660 }) },
    ],
    tags: [{ tag: 'stable', revision: 2, daysAgo: 16 }],
  },
  {
    key: 'acme-amr',
    org: ACME,
    name: 'Nimbus AMR-500 base',
    visibility: FragmentVisibility.FRAGMENT_VISIBILITY_PRIVATE,
    revisions: [
      { daysAgo: 28, editor: 'dana-laptop', config: (ids) => amrBase(ids, 1.2, '1') },
      { daysAgo: 19, editor: 'dana-laptop', config: (ids) => amrBase(ids, 1.5, 'stable') },
      { daysAgo: 11, editor: 'ci-deploy', config: (ids) => amrBase(ids, 1.5, 'stable', { network: { sessions: { heartbeat_window: '2s' } } }) },
      { daysAgo: 2, editor: 'ci-deploy', config: (ids) => amrBase(ids, 1.8, null, { network: { sessions: { heartbeat_window: '2s' } } }) },
    ],
    tags: [
      { tag: 'stable', revision: 3, daysAgo: 9 },
      { tag: 'canary', revision: 4, daysAgo: 2 },
    ],
  },
  {
    key: 'acme-picker',
    org: ACME,
    name: 'Kestrel picker cell',
    visibility: FragmentVisibility.FRAGMENT_VISIBILITY_PRIVATE,
    revisions: [
      {
        daysAgo: 24,
        editor: 'dana-laptop',
        config: (): JsonObject => ({
          components: [
            { name: 'arm', type: 'arm', model: 'ur5e', attributes: { host: '10.20.0.5', speed_degs_per_sec: 60 } },
            { name: 'gripper', type: 'gripper', model: 'robotiq-2f85', depends_on: ['arm'] },
            { name: 'wrist-cam', type: 'camera', model: 'realsense-d435', attributes: { width_px: 1280, height_px: 720 } },
          ],
          services: [{ name: 'wms', type: 'generic', model: 'acme-warehouse:wms:bridge', attributes: { endpoint: 'https://wms.acme.internal/api', site: 'RNO1' } }],
          modules: [{ type: 'registry', name: 'wms-bridge', module_id: 'acme-warehouse:wms-bridge', version: '0.9.0' }],
        }),
      },
      {
        daysAgo: 8,
        editor: 'dana-laptop',
        config: (): JsonObject => ({
          components: [
            { name: 'arm', type: 'arm', model: 'ur5e', attributes: { host: '10.20.0.5', speed_degs_per_sec: 45 } },
            { name: 'gripper', type: 'gripper', model: 'robotiq-2f85', depends_on: ['arm'], attributes: { force_pct: 40 } },
            { name: 'wrist-cam', type: 'camera', model: 'realsense-d435', attributes: { width_px: 1280, height_px: 720 } },
          ],
          services: [{ name: 'wms', type: 'generic', model: 'acme-warehouse:wms:bridge', attributes: { endpoint: 'https://wms.acme.internal/api', site: 'RNO1' } }],
          modules: [{ type: 'registry', name: 'wms-bridge', module_id: 'acme-warehouse:wms-bridge', version: '0.9.0' }],
        }),
      },
    ],
  },
  {
    key: 'acme-forklift',
    org: ACME,
    name: 'Atlas forklift safety',
    visibility: FragmentVisibility.FRAGMENT_VISIBILITY_PRIVATE,
    revisions: [
      {
        daysAgo: 21,
        editor: 'dana-laptop',
        config: (ids): JsonObject => ({
          components: [{ name: 'scanner', type: 'camera', model: 'sick-microscan3', attributes: { protective_field_m: 1.8, warning_field_m: 3.5 } }],
          fragments: [{ id: ids('acme-lidar'), version: 'stable', prefix: 'mast-' }],
        }),
      },
    ],
  },
  {
    key: 'harbor-tug',
    org: HARBORLINE,
    name: 'Harbor Tug T4 base',
    visibility: FragmentVisibility.FRAGMENT_VISIBILITY_PRIVATE,
    revisions: [
      { daysAgo: 23, editor: 'harbor-ops', config: (ids) => tug(ids, '3.1.4', 2.0) },
      { daysAgo: 6, editor: 'harbor-ops', config: (ids) => tug(ids, '3.1.4', 2.5) },
    ],
    tags: [{ tag: 'stable', revision: 1, daysAgo: 22 }],
  },
  {
    key: 'north-rtk',
    org: NORTHFIELD,
    name: 'RTK GPS (u-blox F9P)',
    visibility: FragmentVisibility.FRAGMENT_VISIBILITY_PUBLIC,
    revisions: [
      { daysAgo: 27, editor: 'priya-workstation', config: () => rtk(5) },
      { daysAgo: 12, editor: 'priya-workstation', config: () => rtk(10) },
    ],
    tags: [{ tag: 'stable', revision: 2, daysAgo: 10 }],
  },
  {
    key: 'north-rover',
    org: NORTHFIELD,
    name: 'FieldHand R2 rover base',
    visibility: FragmentVisibility.FRAGMENT_VISIBILITY_PRIVATE,
    revisions: [
      { daysAgo: 25, editor: 'priya-workstation', config: (ids) => rover(ids, 1.0, '0.4.0') },
      { daysAgo: 13, editor: 'priya-workstation', config: (ids) => rover(ids, 1.2, '0.5.0') },
      { daysAgo: 3, editor: 'ci-deploy', config: (ids) => rover(ids, 1.5, '0.5.0') },
    ],
    tags: [{ tag: 'stable', revision: 2, daysAgo: 12 }],
  },
  {
    key: 'north-telemetry',
    org: NORTHFIELD,
    name: 'Farm telemetry',
    visibility: FragmentVisibility.FRAGMENT_VISIBILITY_PRIVATE,
    revisions: [
      {
        daysAgo: 20,
        editor: 'priya-workstation',
        config: (): JsonObject => ({ services: [{ name: 'data_manager', type: 'data_manager', model: 'builtin', attributes: { sync_interval_mins: 5, capture_dir: '/data/capture', tags: ['northfield'] } }] }),
      },
    ],
  },
  {
    key: 'polaris-flight',
    org: POLARIS,
    name: 'Skua Q8 flight stack',
    visibility: FragmentVisibility.FRAGMENT_VISIBILITY_PRIVATE,
    revisions: [
      { daysAgo: 22, editor: 'polaris-ops', config: (ids) => flight(ids, 12) },
      { daysAgo: 9, editor: 'polaris-ops', config: (ids) => flight(ids, 15) },
    ],
  },
  {
    key: 'mega-base',
    org: MEGAFLEET,
    name: 'Megafleet base',
    visibility: FragmentVisibility.FRAGMENT_VISIBILITY_PRIVATE,
    revisions: [
      { daysAgo: 20, editor: 'ci-deploy', config: (): JsonObject => ({ services: [{ name: 'data_manager', type: 'data_manager', model: 'builtin', attributes: { sync_interval_mins: 10 } }], network: { sessions: { heartbeat_window: '5s' } } }) },
      { daysAgo: 4, editor: 'ci-deploy', config: (): JsonObject => ({ services: [{ name: 'data_manager', type: 'data_manager', model: 'builtin', attributes: { sync_interval_mins: 5 } }], network: { sessions: { heartbeat_window: '5s' } } }) },
    ],
    tags: [{ tag: 'stable', revision: 1, daysAgo: 19 }],
  },
  { key: 'mega-amr', org: MEGAFLEET, name: 'Megafleet AMR', visibility: FragmentVisibility.FRAGMENT_VISIBILITY_PRIVATE, revisions: [{ daysAgo: 18, editor: 'ci-deploy', config: (ids): JsonObject => ({ ...megaKind(ids, { name: 'base', type: 'base', model: 'wheeled' }), fragments: [ids('mega-base'), { id: ids('acme-lidar'), version: 'stable' }] }) }] },
  { key: 'mega-picker', org: MEGAFLEET, name: 'Megafleet picker', visibility: FragmentVisibility.FRAGMENT_VISIBILITY_PRIVATE, revisions: [{ daysAgo: 18, editor: 'ci-deploy', config: (ids) => megaKind(ids, { name: 'arm', type: 'arm', model: 'ur5e' }) }] },
  { key: 'mega-tug', org: MEGAFLEET, name: 'Megafleet tug', visibility: FragmentVisibility.FRAGMENT_VISIBILITY_PRIVATE, revisions: [{ daysAgo: 18, editor: 'ci-deploy', config: (ids) => megaKind(ids, { name: 'base', type: 'base', model: 'skid-steer' }) }] },
  { key: 'mega-drone', org: MEGAFLEET, name: 'Megafleet drone', visibility: FragmentVisibility.FRAGMENT_VISIBILITY_PRIVATE, revisions: [{ daysAgo: 18, editor: 'ci-deploy', config: (ids) => megaKind(ids, { name: 'fc', type: 'movement_sensor', model: 'px4' }) }] },
  { key: 'mega-rover', org: MEGAFLEET, name: 'Megafleet rover', visibility: FragmentVisibility.FRAGMENT_VISIBILITY_PRIVATE, revisions: [{ daysAgo: 18, editor: 'ci-deploy', config: (ids) => megaKind(ids, { name: 'base', type: 'base', model: 'four-wheel' }) }] },
];

function tug(ids: Ids, version: string, speed: number): JsonObject {
  return {
    components: [
      { name: 'base', type: 'base', model: 'skid-steer', attributes: { max_speed_mps: speed, track_width_mm: 1400 } },
      { name: 'gps', type: 'movement_sensor', model: 'ublox-f9p', attributes: { serial_path: '/dev/ttyACM0' } },
    ],
    services: [{ name: 'dispatch', type: 'generic', model: 'harborline:tugs:dispatch', attributes: { tos_endpoint: 'https://tos.harborline.internal', yard: 'T2' } }],
    modules: [{ type: 'registry', name: 'tug-dispatch', module_id: ids('harborline-tug-dispatch'), version }],
  };
}

function rover(ids: Ids, speed: number, version: string): JsonObject {
  return {
    components: [
      { name: 'base', type: 'base', model: 'four-wheel', attributes: { max_speed_mps: speed, wheelbase_mm: 900 } },
      { name: 'stereo', type: 'camera', model: 'zed-2i', attributes: { resolution: 'HD720', fps: 30 } },
    ],
    services: [{ name: 'rows', type: 'navigation', model: 'northfield-agri:nav:row-follower', attributes: { camera: 'stereo', movement_sensor: 'gps', row_spacing_m: 0.76 } }],
    modules: [{ type: 'registry', name: 'row-follower', module_id: 'northfield-agri:row-follower', version }],
    fragments: [{ id: ids('north-rtk'), version: 'stable' }],
  };
}

function flight(ids: Ids, maxSpeed: number): JsonObject {
  return {
    components: [
      { name: 'fc', type: 'movement_sensor', model: 'px4', attributes: { connection: 'serial:///dev/ttyAMA0:921600', max_speed_mps: maxSpeed } },
      { name: 'gimbal-cam', type: 'camera', model: 'gimbal-4k', attributes: { width_px: 3840, height_px: 2160 } },
      { name: 'thermal', type: 'camera', model: 'flir-boson', attributes: { palette: 'ironbow' } },
    ],
    services: [{ name: 'hot-spots', type: 'mlmodel', model: 'tflite_cpu', attributes: { package: 'thermal-anomaly' } }],
    packages: [{ name: 'thermal-anomaly', package: ids('polaris-thermal-anomaly'), type: 'ml_model', version: '1.0.0' }],
  };
}

/**
 * Create the demo fragments of the organizations present (the benchmark fleet's only with it), with
 * their revisions and tags. `editors` names the demo keys; `extra` resolves the non-fragment ids a
 * config names (registry ids of organizations without a namespace). Answers each fragment's id by key.
 */
export function seedDemoFragments(
  store: FragmentStore,
  orgs: readonly Organization[],
  editors: ReadonlyMap<string, EditorInfo>,
  now: Date,
  extra: ReadonlyMap<string, string>,
): Map<string, string> {
  const ids = new Map<string, string>();
  const id: Ids = (key) => present(ids.get(key) ?? extra.get(key), `demo fragment or id ${key}`);
  for (const spec of FRAGMENTS) {
    const org = orgs.find((o) => o.name === spec.org);
    if (org === undefined) continue;
    const [first, ...later] = spec.revisions;
    if (first === undefined) continue;
    const at = (daysAgo: number) => new Date(now.getTime() - daysAgo * DAY);
    const editor = (name: string) => present(editors.get(name), `demo key ${name}`);
    const row = store.create(org.id, spec.name, JSON.stringify(first.config(id)), spec.visibility, editor(first.editor), { now: at(first.daysAgo) });
    ids.set(spec.key, row.id);
    for (const r of later) store.update(row.id, { name: r.name ?? spec.name, configJson: JSON.stringify(r.config(id)) }, { editor: editor(r.editor), now: at(r.daysAgo) });
    for (const t of spec.tags ?? []) store.setTag(row.id, t.tag, t.revision, at(t.daysAgo));
  }
  return ids;
}
