/**
 * Issue #20, "service queries that grow with the fleet": on `--demo --demo-machines 10000` with 1,000
 * registry items in "Megafleet Logistics", each of these costs ≤ 1.5× a single indexed query of the
 * same rows, measured in the same run:
 *
 * - ListRegistryItems of a page of 1,000 items (the store's listing: each row with its platforms and,
 *   for modules, total_robot_usage) vs one SELECT of the same 1,000 item rows, without those two
 *   columns, through the (organization, name) index. It used to run a platform query per candidate
 *   row and a scan of every part's config per module; both are kept on the row at write time now
 *   (migration 0016).
 * - A module's total_robot_usage when all 10,000 machines' main parts use it (GetRegistryItem's and
 *   DeleteRegistryItem's read of the item's row) vs counting the same 10,000 parts through an index
 *   (the parts naming their kind's fragment, `part_fragment_refs_by_fragment`). It used to parse
 *   every part's config: that scan is timed once beside it, for context.
 * - `training.scripts`' read: ListRegistryItems of the 300 training scripts with include_versions
 *   (the store's two queries: the page, and its versions joined with their files; the one call main
 *   makes now, instead of one ListRegistryItemVersions per script) vs one SELECT of the same
 *   scripts' files with their versions (the fields the answer carries) through the indexes. The
 *   old way's calls, one per script, are timed beside it over gRPC for context.
 *
 * The fleet is seeded by the real service (`--demo --demo-machines 10000`) in a child process; the
 * bench then stops it, adds the items and the module to the main parts' configs through the stores
 * (so the index and the counts are written as in the app), and times the stores' queries in-process (what the
 * handlers run; gRPC and auth are the same for the figure and would blur it), alternating each
 * figure with its baseline, 15 rounds, medians. The verdicts compare queries with a query; the
 * handlers' whole work (the rows made into protobuf objects: dates, urls, parsed JSON) is printed
 * beside each. The service is started again on the same data dir for the gRPC context figure.
 *
 *   npm run bench -- registry-queries
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { credentials, Metadata } from '@grpc/grpc-js';
import { AppServiceClient } from '../proto/gen/fleet/app/v1/app';
import { AuthServiceClient } from '../proto/gen/fleet/auth/v1/auth';
import { ListRegistryItemsRequest, PackageType, type ListRegistryItemsResponse, type ListRegistryItemVersionsResponse } from '../proto/gen/fleet/app/v1/registry';
import { MachineStore } from '../service/machines/store';
import { RegistryStore, type ItemFilter } from '../service/registry/store';
import { DATABASE_FILE } from '../service/server';
import { machine, ms, percentile, report, startServiceProcess } from './lib';

const MACHINES = 10_000;
const MODULES = 600;
const SCRIPTS = 300;
const MODELS = 100;
const ITEMS = MODULES + SCRIPTS + MODELS;
const ROUNDS = 15;
const WARMUP = 3;

/** Median of `figure` and of `baseline` over alternated rounds, with the last result of each. */
function alternate<A, B>(figure: () => A, baseline: () => B): { figure: number; baseline: number; figureResult: A; baselineResult: B } {
  const f: number[] = [];
  const b: number[] = [];
  let figureResult!: A;
  let baselineResult!: B;
  for (let i = 0; i < WARMUP + ROUNDS; i++) {
    let start = performance.now();
    figureResult = figure();
    const tf = performance.now() - start;
    start = performance.now();
    baselineResult = baseline();
    const tb = performance.now() - start;
    if (i >= WARMUP) {
      f.push(tf);
      b.push(tb);
    }
  }
  return { figure: percentile(f, 50), baseline: percentile(b, 50), figureResult, baselineResult };
}

/** Seed the items (each published: three versions, two platforms each) and the module on every main part, through the stores. */
function seed(db: Database.Database, orgId: string): { usedModule: string } {
  const registry = new RegistryStore(db, () => 'http://bench');
  const sha = 'a'.repeat(64);
  const at = new Date('2026-11-01T00:00:00Z');
  db.transaction(() => {
    const kinds: [string, PackageType, number][] = [
      ['mod', PackageType.PACKAGE_TYPE_MODULE, MODULES],
      ['train', PackageType.PACKAGE_TYPE_ML_TRAINING, SCRIPTS],
      ['model', PackageType.PACKAGE_TYPE_ML_MODEL, MODELS],
    ];
    for (const [prefix, type, count] of kinds) {
      for (let i = 0; i < count; i++) {
        const row = registry.create(orgId, `${prefix}-${String(i).padStart(4, '0')}`, type, at);
        registry.updateManifest(row.id, { url: '', description: `Bench ${prefix} ${i}`, models: [], entrypoint: 'bin/run', visibility: 1, apps: [], firstRun: '' }, at);
        const manifested = registry.row(row.id);
        for (const version of ['1.0.0', '1.1.0', '2.0.0']) for (const platform of ['linux/amd64', 'linux/arm64']) registry.addFile(manifested, version, platform, 1024, sha, at);
      }
    }
  })();
  // Every main part of the fleet uses mod-0000, and one more module of the 600 (about 17 parts each).
  const machines = new MachineStore(db, { dropOn: () => undefined });
  const parts = db
    .prepare(`SELECT p.id, p.name, p.config_json FROM robot_parts p JOIN locations l ON l.id = p.location_id WHERE l.organization_id = ? AND p.main_part = 1 ORDER BY p.id`)
    .all(orgId) as { id: string; name: string; config_json: string }[];
  const editor = { identityType: '', identityId: 'bench', displayName: 'bench' };
  const usedModule = `${orgId}:mod-0000`;
  db.transaction(() => {
    for (const [i, p] of parts.entries()) {
      const config = JSON.parse(p.config_json) as Record<string, unknown>;
      const other = `${orgId}:mod-${String(1 + (i % (MODULES - 1))).padStart(4, '0')}`;
      config.modules = [
        { type: 'registry', name: 'base', module_id: usedModule, version: '2.0.0' },
        { type: 'registry', name: 'extra', module_id: other, version: '1.1.0' },
      ];
      machines.updatePart(p.id, { name: p.name, configJson: JSON.stringify(config, null, 2) }, { editor });
    }
  })();
  if (parts.length !== MACHINES) throw new Error(`Megafleet has ${parts.length} main parts, not ${MACHINES}`);
  return { usedModule };
}

async function main(): Promise<boolean> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fleet-bench-registry-'));
  try {
    let started = performance.now();
    const seeding = await startServiceProcess(['--demo', '--demo-machines', String(MACHINES)], { dataDir });
    await seeding.stop();
    const fleetSeconds = (performance.now() - started) / 1000;

    const db = new Database(join(dataDir, DATABASE_FILE));
    db.pragma('foreign_keys = ON');
    const orgId = db.prepare("SELECT id FROM organizations WHERE name = 'Megafleet Logistics'").pluck().get() as string;
    started = performance.now();
    const { usedModule } = seed(db, orgId);
    const seedSeconds = (performance.now() - started) / 1000;
    db.pragma('optimize');

    const store = new RegistryStore(db, () => 'http://bench');
    const filter = (types: PackageType[]): ItemFilter => ({ organizationId: orgId, types, visibilities: [], platforms: [], statuses: [], searchTerm: '', namespaces: [] });
    const COLUMNS = `r.id, r.organization_id, coalesce(o.public_namespace, '') AS namespace, r.name, r.type, r.visibility, r.description,
      r.url, r.markdown, r.entrypoint, r.models, r.apps, r.first_run, r.created_at, r.updated_at`;

    // 1. ListRegistryItems: a page of the 1,000 items.
    const plainPage = db.prepare(`SELECT ${COLUMNS} FROM registry_items r JOIN organizations o ON o.id = r.organization_id WHERE r.organization_id = ? ORDER BY r.organization_id, r.name LIMIT 1001`);
    const listing = alternate(
      () => store.list(filter([]), [orgId], null, 1000),
      () => plainPage.all(orgId),
    );
    const listed = listing.figureResult.rows;
    if (listed.length !== ITEMS || listing.baselineResult.length !== ITEMS) throw new Error(`listed ${listed.length} and ${listing.baselineResult.length} items, not ${ITEMS}`);
    const used = listed.find((r) => `${r.organization_id}:${r.name}` === usedModule);
    if (used?.usage !== MACHINES || (JSON.parse(used.platforms) as string[]).length !== 2) throw new Error(`the listing says ${used?.usage} parts use ${usedModule}, not ${MACHINES}`);
    // The handler's whole work for context: the rows made into answers.
    const answers = alternate(
      () => store.list(filter([]), [orgId], null, 1000).rows.map((r) => store.toItem(r, false)),
      () => plainPage.all(orgId),
    );

    // 2. total_robot_usage of the module all 10,000 main parts use.
    const usedRow = store.row(used.id);
    const kindFragments = db.prepare(`SELECT DISTINCT f.fragment_id FROM part_fragment_refs f JOIN robot_parts p ON p.id = f.part_id JOIN locations l ON l.id = p.location_id WHERE l.organization_id = ? AND p.main_part = 1`).pluck().all(orgId) as string[];
    const sameParts = db.prepare('SELECT count(DISTINCT part_id) FROM part_fragment_refs WHERE fragment_id IN (SELECT value FROM json_each(?))').pluck();
    const usage = alternate(
      () => store.row(usedRow.id).usage,
      () => sameParts.get(JSON.stringify(kindFragments)) as number,
    );
    if (usage.figureResult !== MACHINES || usage.baselineResult !== MACHINES) throw new Error(`usage ${usage.figureResult}, baseline count ${usage.baselineResult}, not ${MACHINES} each`);
    const scan = db.prepare(
      `SELECT count(DISTINCT p.id) FROM robot_parts p, json_each(p.config_json, '$.modules') m WHERE json_type(m.value) = 'object' AND json_extract(m.value, '$.module_id') IN (?, ?)`,
    );
    started = performance.now();
    const scanned = scan.pluck().get(usedModule, usedModule) as number;
    const scanMs = performance.now() - started;
    if (scanned !== MACHINES) throw new Error(`the scan counts ${scanned} parts`);

    // 3. training.scripts: the 300 scripts with their versions.
    const scriptFiles = db.prepare(
      `SELECT r.id, r.name, v.version, v.entrypoint, v.models, v.apps, v.uploaded_at, f.platform, f.size_bytes, f.sha256, f.uploaded_at AS file_uploaded_at FROM registry_items r
         JOIN registry_versions v ON v.item_id = r.id JOIN registry_files f ON f.item_id = v.item_id AND f.version = v.version
        WHERE r.organization_id = ? AND r.type = ? ORDER BY r.name, v.version_key, f.platform`,
    );
    const scriptsFilter = filter([PackageType.PACKAGE_TYPE_ML_TRAINING]);
    const scripts = alternate(
      () => {
        const page = store.list(scriptsFilter, [orgId], null, 1000).rows;
        return { page, versions: store.versionRows(page) };
      },
      () => scriptFiles.all(orgId, PackageType.PACKAGE_TYPE_ML_TRAINING),
    );
    if (scripts.figureResult.page.length !== SCRIPTS || scripts.figureResult.versions.length !== SCRIPTS * 6 || scripts.baselineResult.length !== SCRIPTS * 6) throw new Error('the scripts are not as seeded');
    // The handler's whole work for context: the rows made into answers, versions and files included.
    const scriptAnswers = alternate(
      () => {
        const page = store.list(scriptsFilter, [orgId], null, 1000).rows;
        const versions = store.versionsOf(page);
        return page.map((r) => store.toItem(r, false, versions.get(r.id)));
      },
      () => scriptFiles.all(orgId, PackageType.PACKAGE_TYPE_ML_TRAINING),
    );
    if (scriptAnswers.figureResult.some((s) => s.versions.length !== 3 || s.versions.some((v) => v.files.length !== 2))) throw new Error('the scripts answered are not as seeded');
    db.close();

    // For context, over gRPC: the one call main makes now, and the calls it made before (one per script).
    const service = await startServiceProcess([], { dataDir });
    const auth = new AuthServiceClient(service.address, credentials.createInsecure());
    const app = new AppServiceClient(service.address, credentials.createInsecure());
    let oneCall = NaN;
    let perScript = NaN;
    try {
      const token = await new Promise<string>((resolve, reject) =>
        auth.authenticate({ entity: service.apiKeyId, credentials: { type: 'api-key', payload: service.apiKey } }, (e, r) => (e ? reject(e) : resolve(r.accessToken))),
      );
      const md = new Metadata();
      md.set('authorization', `Bearer ${token}`);
      const unary = <Res>(method: unknown, request: object) =>
        new Promise<Res>((resolve, reject) =>
          (method as (q: object, m: Metadata, cb: (e: Error | null, r: Res) => void) => void).call(app, request, md, (e, r) => (e ? reject(e) : resolve(r))),
        );
      const list = (includeVersions: boolean) =>
        unary<ListRegistryItemsResponse>(app.listRegistryItems, ListRegistryItemsRequest.fromPartial({ organizationId: orgId, types: [PackageType.PACKAGE_TYPE_ML_TRAINING], pageSize: 1000, includeVersions }));
      const once: number[] = [];
      const each: number[] = [];
      for (let i = 0; i < 5; i++) {
        let start = performance.now();
        await list(true);
        once.push(performance.now() - start);
        start = performance.now();
        const { items } = await list(false);
        for (const item of items) await unary<ListRegistryItemVersionsResponse>(app.listRegistryItemVersions, { itemId: item.itemId });
        each.push(performance.now() - start);
      }
      oneCall = percentile(once.slice(1), 50);
      perScript = percentile(each.slice(1), 50);
    } finally {
      auth.close();
      app.close();
      await service.stop();
    }

    console.log(`registry-queries on ${machine()}`);
    console.log(`  fleet of ${MACHINES} machines seeded by the service in ${fleetSeconds.toFixed(1)} s; ${ITEMS} items (${MODULES} modules, ${SCRIPTS} training scripts, ${MODELS} models; 3 versions × 2 platforms each) and the modules of ${MACHINES} main parts written through the stores in ${seedSeconds.toFixed(1)} s`);
    console.log(`  medians of ${ROUNDS} alternated rounds`);
    console.log(`  ListRegistryItems, 1,000 items: the store's query ${ms(listing.figure)}; made into answers ${ms(answers.figure)}; one indexed SELECT of the same rows ${ms(listing.baseline)}`);
    console.log(`  total_robot_usage of a module on ${MACHINES} parts: ${ms(usage.figure)}; counting the same parts through part_fragment_refs ${ms(usage.baseline)}; the scan it replaces (every config parsed) ${ms(scanMs)}`);
    console.log(`  ${SCRIPTS} training scripts with their versions: the store's two queries (the page, its versions with their files) ${ms(scripts.figure)}; made into answers ${ms(scriptAnswers.figure)}; one indexed SELECT of the same files and versions ${ms(scripts.baseline)}`);
    console.log(`  over gRPC (context): ListRegistryItems with include_versions, one call ${ms(oneCall)}; without it and then ListRegistryItemVersions per script (${SCRIPTS + 1} calls, as before) ${ms(perScript)}`);
    const a = report({
      name: 'ListRegistryItems, a page of 1,000 items with platforms and usage (one query)',
      ratio: listing.figure / listing.baseline,
      limit: 1.5,
      detail: `${ms(listing.figure)} vs ${ms(listing.baseline)} for the rows alone; made into answers ${ms(answers.figure)}`,
    });
    const b = report({ name: `total_robot_usage of a module ${MACHINES} parts use (read with its row)`, ratio: usage.figure / usage.baseline, limit: 1.5, detail: `${ms(usage.figure)} vs ${ms(usage.baseline)}; the config scan took ${ms(scanMs)}` });
    const c = report({
      name: `training.scripts' read, ${SCRIPTS} scripts with their versions (one call)`,
      ratio: scripts.figure / scripts.baseline,
      limit: 1.5,
      detail: `${ms(scripts.figure)} vs ${ms(scripts.baseline)}; made into answers ${ms(scriptAnswers.figure)}; over gRPC one call ${ms(oneCall)} vs ${ms(perScript)} for a call per script`,
    });
    return a && b && c;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

process.exitCode = (await main()) ? 0 : 1;
