// The sweep of interrupted uploads and the claim on a data dir's uploads, on a real database and
// real files: what a stream under way holds is never the sweep's, and one process writes a data
// dir's uploads at a time.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PackageType } from '../../proto/gen/fleet/app/v1/registry';
import { migrate } from '../../db/migrate';
import { Authorizations } from '../../service/access/authorizations';
import { serviceMigrations } from '../../service/db/migrations';
import { openDatabase } from '../../service/db/open';
import { OrgStore } from '../../service/orgs/store';
import { RegistryFiles } from '../../service/registry/files';
import { sweepUploads, UPLOAD_KEPT_MS } from '../../service/registry/handlers';
import { RegistryStore } from '../../service/registry/store';
import { fileKey, UploadStreams, type Streaming } from '../../service/registry/streams';

let dir: string;
let db: Database.Database;
let store: RegistryStore;
let files: RegistryFiles;
let itemId: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fleet-sweep-'));
  db = openDatabase(join(dir, 'fleet.db'));
  migrate(db, serviceMigrations);
  const org = new OrgStore(db, new Authorizations(db)).create('Sweep Co', { type: '', id: 'k' });
  store = new RegistryStore(db, () => 'http://x');
  itemId = store.create(org.id, 'swept', PackageType.PACKAGE_TYPE_ML_TRAINING).id;
  files = new RegistryFiles(dir);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** An interrupted upload of `version`: its row (last touched `at`) and its `.part`. */
function interrupted(version: string, at: Date): string {
  store.saveUpload(itemId, version, 'linux/any', 3, at);
  const part = files.partPath(itemId, version, 'linux/any');
  mkdirSync(dirname(part), { recursive: true });
  writeFileSync(part, 'abc');
  return part;
}

const streaming = (): Streaming => ({ keyId: 'k', phase: 'receiving', size: 0, waiters: 0, takeOver: () => undefined, released: Promise.resolve() });

describe('sweepUploads', () => {
  it('drops uploads nobody continued for a day, but never the bytes of a stream under way, however old its row', async () => {
    const old = new Date(Date.now() - UPLOAD_KEPT_MS - 60_000);
    const abandoned = interrupted('1.0.0', old);
    const live = interrupted('2.0.0', old);
    const streams = new UploadStreams();
    streams.byFile.set(fileKey(itemId, '2.0.0', 'linux/any'), streaming());
    // A .part a stream created after its row was read (no row yet): the stream's, not a stray.
    streams.byFile.set(fileKey(itemId, '3.0.0', 'linux/any'), streaming());
    const fresh = files.partPath(itemId, '3.0.0', 'linux/any');
    writeFileSync(fresh, 'x');
    const stray = files.partPath(itemId, '4.0.0', 'linux/any');
    writeFileSync(stray, 'y');
    expect(await sweepUploads(store, files, streams)).toBe(2);
    expect([existsSync(abandoned), existsSync(live), existsSync(fresh), existsSync(stray)]).toEqual([false, true, true, false]);
    expect(store.upload(itemId, '1.0.0', 'linux/any')).toBeUndefined();
    expect(store.upload(itemId, '2.0.0', 'linux/any')).toBeDefined();
  });

  it('takes with an expired upload the file a crash left placed but never recorded', async () => {
    interrupted('5.0.0', new Date(Date.now() - UPLOAD_KEPT_MS - 60_000));
    expect(await files.place(itemId, '5.0.0', 'linux/any')).toBe(true);
    await sweepUploads(store, files, new UploadStreams());
    expect(existsSync(files.path(itemId, '5.0.0', 'linux/any'))).toBe(false);
  });
});

describe('RegistryFiles.claimUploads', () => {
  it("gives a data dir's uploads to one instance at a time; released, or its holder gone, another takes them", () => {
    const first = new RegistryFiles(dir);
    const second = new RegistryFiles(dir);
    expect(first.claimUploads()).toBeNull();
    expect(first.claimUploads()).toBeNull();
    expect(second.claimUploads()).toMatch(new RegExp(`pid ${process.pid}\\) serving this data dir takes its uploads`));
    first.releaseUploads();
    expect(second.claimUploads()).toBeNull();
    // A holder that was killed without letting go: its pid runs no more.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    writeFileSync(join(dir, 'registry', 'uploads.owner'), `${dead} 0123456789abcdef`);
    expect(first.claimUploads()).toBeNull();
    expect(second.claimUploads()).not.toBeNull();
  });
});
