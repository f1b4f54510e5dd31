/**
 * Part configs for tests and benchmarks: realistic shapes (the sections the editor's schema
 * documents) at any size, the same text for the same arguments so a figure or a failure repeats.
 */

/** The modules the fixtures' components come from, as a registry would list them. */
export const fixtureModules = [
  { id: 'acme-warehouse:slam', models: [{ api: 'rdk:service:slam', model: 'acme-warehouse:slam:cartographer-lite' }, { api: 'rdk:component:camera', model: 'acme-warehouse:slam:map-view' }] },
  { id: 'acme-warehouse:wms-bridge', models: [{ api: 'rdk:service:generic', model: 'acme-warehouse:wms:bridge' }] },
  { id: 'northfield-agri:row-nav', models: [{ api: 'rdk:service:navigation', model: 'northfield-agri:nav:row-follower' }] },
] as const;

const KINDS = [
  { api: 'rdk:component:camera', model: 'rdk:builtin:webcam', attributes: (i: number) => ({ video_path: `/dev/video${i % 4}`, width_px: 640, frame_rate: 15 + (i % 16) }) },
  { api: 'rdk:component:motor', model: 'rdk:builtin:gpio', attributes: (i: number) => ({ board: 'local', pwm_pin: String(11 + (i % 20)), max_rpm: 100 + (i % 200) }) },
  { api: 'rdk:component:movement_sensor', model: 'rdk:builtin:imu-wit', attributes: (i: number) => ({ serial_path: `/dev/ttyUSB${i % 3}`, serial_baud_rate: 115200 }) },
  { api: 'rdk:component:camera', model: 'acme-warehouse:slam:map-view', attributes: (i: number) => ({ slam_service: 'slam', refresh_ms: 250 + (i % 500) }) },
] as const;

/** A component of a fixture config. */
export interface FixtureComponent {
  name: string;
  api: string;
  model: string;
  attributes: Record<string, unknown>;
  depends_on?: string[];
}

/**
 * An edit of a fixture config's components, as a person would make it: change component `i` (answer
 * it changed), drop it (`[]`), or add some after it (`[component, ...added]`). The text of every
 * component it leaves alone stays byte for byte the same, as in a real edit.
 */
export type FixtureEdit = (i: number, component: FixtureComponent) => FixtureComponent | FixtureComponent[];

/** The name of the `i`th component of a fixture config. */
export const componentName = (i: number): string => `component-${String(i).padStart(5, '0')}`;

/**
 * A part config with `components` components (about 205 bytes each, so 5,000 make 1 MiB), a few
 * services, modules, packages, processes, fragments, fragment mods, network and auth, pretty-printed
 * with two spaces as the service stores what people type; `edit` changes its components.
 */
export function fixtureConfig(components: number, edit?: FixtureEdit): string {
  const config = {
    components: Array.from({ length: components }, (_, i) => {
      const kind = KINDS[i % KINDS.length];
      const component: FixtureComponent = { name: componentName(i), api: kind.api, model: kind.model, attributes: kind.attributes(i), ...(i % 7 === 6 ? { depends_on: [componentName(i - 1)] } : {}) };
      return edit ? edit(i, component) : component;
    }).flat(),
    services: [
      { name: 'slam', api: 'rdk:service:slam', model: 'acme-warehouse:slam:cartographer-lite', attributes: { config_params: { mode: '2d' } } },
      { name: 'wms', api: 'rdk:service:generic', model: 'acme-warehouse:wms:bridge', attributes: { endpoint: 'https://wms.example.com' } },
    ],
    modules: [
      { type: 'registry', name: 'acme-warehouse_slam', module_id: 'acme-warehouse:slam', version: '1.4.0' },
      { type: 'registry', name: 'acme-warehouse_wms-bridge', module_id: 'acme-warehouse:wms-bridge', version: 'latest' },
    ],
    packages: [{ name: 'pallet-detector', package: 'acme-warehouse/pallet-detector', type: 'ml_model', version: '3' }],
    processes: [{ id: 'heartbeat', name: '/usr/bin/heartbeat', args: ['--interval', '5s'], log: true }],
    fragments: ['frag-amr-base', { id: 'frag-lidar', version: 'stable', prefix: 'front-' }],
    fragment_mods: [{ fragment_id: 'frag-amr-base', mods: [{ $set: { 'components.base.attributes.max_speed_mps': 1.2 } }] }],
    network: { fqdn: 'amr-001.local', bind_address: ':8080' },
    auth: { handlers: [{ type: 'api-key', config: { keys: ['key-1'] } }] },
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}
