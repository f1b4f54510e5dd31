/**
 * The demo fleet's registry: modules with several versions and platforms, ML models and training
 * scripts, public and private, with markdown documentation, and a module that serves an app. Each
 * uploaded file is a real gzipped tarball (meta.json, README.md, the entrypoint) stored as an upload
 * would store it, so sizes and SHA-256 sums are true. Runs inside the demo's transaction.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { gzipSync } from 'node:zlib';
import type Database from 'better-sqlite3';
import { AppType, type App } from '../../proto/gen/fleet/app/v1/apps';
import type { Organization } from '../../proto/gen/fleet/app/v1/orgs';
import { PackageType, Visibility, type Model } from '../../proto/gen/fleet/app/v1/registry';
import { tarball } from '../tar';
import type { RegistryFiles } from './files';
import { RegistryStore } from './store';

interface DemoItem {
  readonly org: string;
  readonly name: string;
  readonly type: PackageType;
  readonly visibility: Visibility;
  readonly description: string;
  readonly url?: string;
  readonly markdown?: string;
  readonly entrypoint?: string;
  readonly models?: readonly Model[];
  readonly apps?: readonly App[];
  /** Versions, oldest first, each with its platforms. */
  readonly versions: readonly [string, readonly string[]][];
}

const doc = (title: string, body: string) => `# ${title}\n\n${body}\n\n## Configuration\n\n\`\`\`json\n{ "frame": "base_link", "rate_hz": 10 }\n\`\`\`\n\n| Attribute | Meaning |\n|---|---|\n| \`frame\` | the frame the output is in |\n| \`rate_hz\` | how often it runs |\n`;

const ITEMS: readonly DemoItem[] = [
  {
    org: 'Acme Warehouse Robotics',
    name: 'lidar-slam',
    type: PackageType.PACKAGE_TYPE_MODULE,
    visibility: Visibility.VISIBILITY_PUBLIC,
    description: '2D lidar SLAM for warehouse AMRs: builds and localizes on occupancy maps.',
    url: 'https://github.com/acme-warehouse/lidar-slam',
    markdown: doc('lidar-slam', 'Builds an occupancy grid from a 2D lidar and wheel odometry, and localizes on a saved map.\n\n- Works with RPLIDAR S2 and SICK microScan3\n- Loop closure every 30 s'),
    entrypoint: 'bin/lidar-slam',
    models: [
      { api: 'rdk:service:slam', model: 'acme-warehouse:slam:cartographer-lite' },
      { api: 'rdk:component:camera', model: 'acme-warehouse:slam:map-view' },
    ],
    apps: [{ name: 'floor-view', type: AppType.APP_TYPE_SINGLE_MACHINE, entrypoint: 'app/index.html', logoPath: 'app/logo.svg', customizations: { machine_picker: { fields: { heading: 'Pick a floor robot' } } }, fragmentIds: [] }],
    versions: [
      ['1.0.0', ['linux/amd64', 'linux/arm64']],
      ['1.1.0', ['linux/amd64', 'linux/arm64']],
      ['1.2.0', ['linux/amd64', 'linux/arm64', 'darwin/arm64']],
    ],
  },
  {
    org: 'Acme Warehouse Robotics',
    name: 'wms-bridge',
    type: PackageType.PACKAGE_TYPE_MODULE,
    visibility: Visibility.VISIBILITY_PRIVATE,
    description: 'Connects pick robots to the warehouse management system (internal).',
    markdown: doc('wms-bridge', 'Pulls pick lists from the WMS and reports completed picks. Internal to Acme.'),
    entrypoint: 'run.sh',
    models: [{ api: 'rdk:service:generic', model: 'acme-warehouse:wms:bridge' }],
    versions: [['0.9.0', ['linux/amd64']]],
  },
  {
    org: 'Acme Warehouse Robotics',
    name: 'gripper-tuner',
    type: PackageType.PACKAGE_TYPE_MODULE,
    visibility: Visibility.VISIBILITY_PRIVATE,
    description: 'Tunes vacuum gripper pressure per SKU (in development).',
    versions: [],
  },
  {
    org: 'Acme Warehouse Robotics',
    name: 'pallet-detector',
    type: PackageType.PACKAGE_TYPE_ML_MODEL,
    visibility: Visibility.VISIBILITY_PUBLIC,
    description: 'Detects pallets and pallet pockets in RGB-D images (YOLO, 640×640).',
    markdown: doc('pallet-detector', 'Trained on 48,000 labelled images from four warehouses. mAP@0.5 = 0.91.'),
    versions: [
      ['1.0.0', ['linux/any']],
      ['2.0.0', ['linux/any']],
    ],
  },
  {
    org: 'Acme Warehouse Robotics',
    name: 'detector-trainer',
    type: PackageType.PACKAGE_TYPE_ML_TRAINING,
    visibility: Visibility.VISIBILITY_PRIVATE,
    description: 'Training script for object detectors on Acme datasets.',
    markdown: doc('detector-trainer', 'Fine-tunes a YOLO detector on a dataset of bounding boxes.'),
    versions: [
      ['0.2.0', ['linux/any']],
      ['0.3.0', ['linux/any']],
    ],
  },
  {
    org: 'Acme Warehouse Robotics',
    name: 'fleet-tools',
    type: PackageType.PACKAGE_TYPE_ARCHIVE,
    visibility: Visibility.VISIBILITY_PUBLIC_UNLISTED,
    description: 'Diagnostics scripts for field technicians.',
    versions: [['1.0.0', ['linux/any']]],
  },
  {
    org: 'Northfield Agri-Bots',
    name: 'row-follower',
    type: PackageType.PACKAGE_TYPE_MODULE,
    visibility: Visibility.VISIBILITY_PUBLIC,
    description: 'Follows crop rows with a stereo camera and RTK GPS.',
    url: 'https://github.com/northfield-agri/row-follower',
    markdown: doc('row-follower', 'Keeps a rover centred between crop rows at up to 1.5 m/s.'),
    entrypoint: 'bin/row-follower',
    models: [{ api: 'rdk:service:navigation', model: 'northfield-agri:nav:row-follower' }],
    versions: [
      ['0.4.0', ['linux/arm64']],
      ['0.5.0', ['linux/arm64', 'linux/amd64']],
    ],
  },
  {
    org: 'Northfield Agri-Bots',
    name: 'crop-classifier',
    type: PackageType.PACKAGE_TYPE_ML_MODEL,
    visibility: Visibility.VISIBILITY_PUBLIC,
    description: 'Classifies crop health from leaf images (healthy, blight, mildew, nutrient stress).',
    versions: [['1.0.0', ['linux/any']]],
  },
  {
    org: 'Northfield Agri-Bots',
    name: 'yield-trainer',
    type: PackageType.PACKAGE_TYPE_ML_TRAINING,
    visibility: Visibility.VISIBILITY_PUBLIC,
    description: 'Training script for yield estimation models.',
    versions: [['1.0.0', ['linux/any']]],
  },
  {
    org: 'Harborline Logistics AMR',
    name: 'tug-dispatch',
    type: PackageType.PACKAGE_TYPE_MODULE,
    visibility: Visibility.VISIBILITY_PRIVATE,
    description: 'Dispatches yard tugs from the terminal operating system.',
    entrypoint: 'dispatch',
    models: [{ api: 'rdk:service:generic', model: 'harborline:tugs:dispatch' }],
    versions: [['3.1.4', ['linux/amd64']]],
  },
  {
    org: 'Polaris Inspection Drones',
    name: 'thermal-anomaly',
    type: PackageType.PACKAGE_TYPE_ML_MODEL,
    visibility: Visibility.VISIBILITY_PRIVATE,
    description: 'Finds hot spots in thermal images of pipes and flare stacks.',
    versions: [['1.0.0', ['linux/any']]],
  },
];


/** Fill the demo organizations' registries (by organization name) with ITEMS and their files. */
export function seedDemoRegistry(db: Database.Database, files: RegistryFiles, orgs: readonly Organization[], now: Date): void {
  const store = new RegistryStore(db, () => '');
  for (const item of ITEMS) {
    const org = orgs.find((o) => o.name === item.org);
    if (!org) continue;
    const row = store.create(org.id, item.name, item.type, now);
    store.updateManifest(
      row.id,
      { url: item.url ?? '', description: item.description, models: item.models ?? [], entrypoint: item.entrypoint ?? '', visibility: item.visibility, apps: item.apps ?? [], firstRun: '' },
      now,
    );
    store.setDocumentation(row.id, item.markdown ?? null);
    item.versions.forEach(([version, platforms], v) => {
      const at = new Date(now.getTime() - (item.versions.length - v) * 14 * 86_400_000);
      for (const platform of platforms) {
        const [os, arch] = platform.split('/');
        const archive = gzipSync(
          tarball({
            'meta.json': `${JSON.stringify({ module_id: `${org.publicNamespace || org.id}:${item.name}`, version, visibility: item.visibility === Visibility.VISIBILITY_PUBLIC ? 'public' : 'private', description: item.description, entrypoint: item.entrypoint ?? '', models: item.models ?? [], build: { os, arch } }, null, 2)}\n`,
            'README.md': item.markdown ?? `# ${item.name}\n`,
            [item.entrypoint ?? 'run.sh']: `#!/bin/sh\n# ${item.name} ${version} for ${platform}\nexec echo "${item.name} ${version}"\n`,
          }),
          { level: 9 },
        );
        const path = files.path(row.id, version, platform);
        mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
        writeFileSync(path, archive, { mode: 0o600 });
        store.addFile(store.row(row.id), version, platform, archive.length, createHash('sha256').update(archive).digest('hex'), at);
      }
    });
  }
}
