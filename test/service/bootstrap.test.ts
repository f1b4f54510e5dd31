// How a data dir is set up, reused, and what happens when its credentials file goes wrong.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CREDENTIALS_FILE, DATABASE_FILE, startService, type RunningService } from '../../service/server';
import { openDatabase } from '../../service/db/open';
import { tempDir } from './helpers';

describe('data dir set-up', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  function dataDir(): string {
    const dir = tempDir();
    cleanups.push(dir.remove);
    return dir.path;
  }
  async function start(dir: string, demo = false, logs: string[] = []): Promise<RunningService> {
    const service = await startService({ listen: '127.0.0.1:0', dataDir: dir, demo, log: (line) => logs.push(line) });
    cleanups.push(() => service.close());
    return service;
  }

  it('gives a new data dir one organization and one owner key, and a reused one the same credentials', async () => {
    const dir = dataDir();
    const first = await start(dir);
    await first.close();
    const second = await start(dir);
    expect(second.bootstrap).toEqual(first.bootstrap);
    const db = openDatabase(join(dir, DATABASE_FILE));
    cleanups.push(() => {
      db.close();
    });
    expect(db.prepare('SELECT count(*) AS n FROM organizations').get()).toEqual({ n: 1 });
    expect(db.prepare('SELECT count(*) AS n FROM api_keys').get()).toEqual({ n: 1 });
  });

  it('ignores --demo for a data dir that is already set up, and says so', async () => {
    const dir = dataDir();
    await (await start(dir)).close();
    const logs: string[] = [];
    await start(dir, true, logs);
    expect(logs.join('\n')).toMatch(/--demo ignored/);
    const db = openDatabase(join(dir, DATABASE_FILE));
    cleanups.push(() => {
      db.close();
    });
    expect(db.prepare('SELECT count(*) AS n FROM organizations').get()).toEqual({ n: 1 });
  });

  it('refuses to start on a set-up data dir whose credentials file is gone or broken, saying what to do', async () => {
    const dir = dataDir();
    await (await start(dir)).close();
    const file = join(dir, CREDENTIALS_FILE);
    const saved = readFileSync(file, 'utf8');

    rmSync(file);
    await expect(startService({ listen: '127.0.0.1:0', dataDir: dir, log: () => undefined })).rejects.toThrow(/credentials file .* cannot be read .*restore it, or start with a new data dir/);
    writeFileSync(file, '{"org_id": 1}', { mode: 0o600 });
    await expect(startService({ listen: '127.0.0.1:0', dataDir: dir, log: () => undefined })).rejects.toThrow(/lacks org_id, api_key_id or api_key/);

    // Restoring the file is all it takes.
    writeFileSync(file, saved, { mode: 0o600 });
    await start(dir);
  });

  it('sets a data dir up again when its database is new, replacing a stale credentials file', async () => {
    const dir = dataDir();
    const first = await start(dir);
    await first.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(join(dir, DATABASE_FILE + suffix), { force: true });
    const second = await start(dir);
    expect(second.bootstrap.apiKeyId).not.toBe(first.bootstrap.apiKeyId);
    expect(JSON.parse(readFileSync(join(dir, CREDENTIALS_FILE), 'utf8'))).toMatchObject({ api_key_id: second.bootstrap.apiKeyId });
  });

  it('warns when the key in the credentials file no longer authenticates', async () => {
    const dir = dataDir();
    const first = await start(dir);
    await first.close();
    const db = openDatabase(join(dir, DATABASE_FILE));
    db.prepare('UPDATE api_keys SET deleted_at = ?').run(new Date().toISOString());
    db.close();
    const logs: string[] = [];
    await start(dir, false, logs);
    expect(logs.join('\n')).toMatch(/no longer authenticates/);
  });

  it('refuses a token lifetime that is not a positive whole number of seconds', async () => {
    await expect(startService({ listen: '127.0.0.1:0', dataDir: dataDir(), tokenTtlSeconds: 0.5 })).rejects.toThrow(/tokenTtlSeconds/);
  });

  it('rejects when the address cannot be bound, and starts on that data dir afterwards', async () => {
    const dir = dataDir();
    const running = await start(dataDir());
    await expect(startService({ listen: running.address, dataDir: dir, log: () => undefined })).rejects.toThrow(/cannot listen on/);
    await start(dir);
  });
});
