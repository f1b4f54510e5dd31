// A service with few file descriptors (`ulimit -n 100`), as the CLI runs: one client cannot use
// them up through upload streams with the default bounds, and where the bounds are raised past what
// the process can open, running out is RESOURCE_EXHAUSTED (OUT_OF_FILE_DESCRIPTORS), never
// INTERNAL, and the service serves again once the streams are gone.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Metadata} from '@grpc/grpc-js';
import { credentials, status, type ServiceError } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { AppServiceClient } from '../../proto/gen/fleet/app/v1/app';
import { UpdateModuleRequest } from '../../proto/gen/fleet/app/v1/registry';
import { AuthServiceClient } from '../../proto/gen/fleet/auth/v1/auth';
import { bearer, call, tempDir } from './helpers';
import { serviceEntry } from '../helpers/entries';

const root = join(import.meta.dirname, '..', '..');
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

interface Started {
  readonly app: AppServiceClient;
  readonly meta: Metadata;
  readonly orgId: string;
  readonly stderr: () => string;
}

/** The service CLI under `ulimit -n 100`, with `flags`; its bootstrap key's token and a client on one connection. */
async function serviceWithFewDescriptors(...flags: string[]): Promise<Started> {
  const dir = tempDir('fleet-fd-test-');
  const child: ChildProcess = spawn('bash', ['-c', `ulimit -n 100 && exec "$0" "$2" --listen 127.0.0.1:0 --data-dir "$1" ${flags.join(' ')}`, process.execPath, join(dir.path, 'data'), serviceEntry], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  cleanups.push(() => {
    child.kill('SIGKILL');
    dir.remove();
  });
  const ready = await new Promise<{ address: string; org_id: string; api_key_id: string; api_key: string }>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))) as never);
    });
    child.on('exit', (code) => reject(new Error(`the service exited (${code}): ${err}`)));
  });
  const auth = new AuthServiceClient(ready.address, credentials.createInsecure());
  const app = new AppServiceClient(ready.address, credentials.createInsecure());
  cleanups.unshift(() => (auth.close(), app.close()));
  const { accessToken } = await call(auth.authenticate.bind(auth), { entity: ready.api_key_id, credentials: { type: 'api-key', payload: ready.api_key } });
  return { app, meta: bearer(accessToken), orgId: ready.org_id, stderr: () => err };
}

/** Open `n` upload streams of different files, each sending a few bytes and staying open; answers those that ended, as they end. */
async function holdStreams(s: Started, n: number) {
  const { moduleId } = await call(s.app.createModule.bind(s.app), { orgId: s.orgId, name: 'many' }, s.meta);
  await call(s.app.updateModule.bind(s.app), UpdateModuleRequest.fromPartial({ moduleId, url: 'https://example.com/m', description: 'd', entrypoint: 'run.sh' }), s.meta);
  const ended: (ServiceError | null)[] = [];
  const calls = Array.from({ length: n }, (_, i) => {
    const c = s.app.uploadModuleFile(s.meta, (e) => ended.push(e));
    c.write({ moduleFile: { $case: 'moduleFileInfo', value: { moduleId, version: `1.0.${i}`, platform: 'linux/any' } }, writeOffset: 0 });
    c.write({ moduleFile: { $case: 'file', value: Buffer.from('held') }, writeOffset: 0 });
    return c;
  });
  return { moduleId, ended, cancel: () => calls.forEach((c) => c.cancel()) };
}

async function until(condition: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

const reasonOf = (e: ServiceError | null) => e?.metadata.get('fleet-error-reason')[0];

describe('file descriptors', () => {
  it('with the default bounds, 120 idle upload streams of one key: 8 are let in, the other 112 are refused UPLOAD_LIMIT and the service keeps serving', async () => {
    const s = await serviceWithFewDescriptors();
    const held = await holdStreams(s, 120);
    await until(() => held.ended.length >= 112);
    expect(held.ended).toHaveLength(112);
    expect(new Set(held.ended.map((e) => `${e?.code} ${reasonOf(e)}`))).toEqual(new Set([`${status.RESOURCE_EXHAUSTED} UPLOAD_LIMIT`]));
    // A new connection and a call still work.
    const other = new AppServiceClient(await addressOf(s), credentials.createInsecure());
    cleanups.unshift(() => other.close());
    expect((await call(other.listOrganizations.bind(other), {}, s.meta)).organizations.length).toBeGreaterThan(0);
    held.cancel();
  }, 60_000);

  it('past what the process can open (bounds raised), a stream is RESOURCE_EXHAUSTED (OUT_OF_FILE_DESCRIPTORS), never INTERNAL, logged once; uploads work once the streams are gone', async () => {
    const s = await serviceWithFewDescriptors('--uploads-per-key', '1000', '--uploads-total', '1000');
    const held = await holdStreams(s, 120);
    await until(() => held.ended.length > 0 && held.ended.length === lastCount(held.ended), 15_000);
    expect(held.ended.length).toBeGreaterThan(0);
    expect(held.ended.filter((e) => e?.code === status.INTERNAL)).toEqual([]);
    expect(held.ended.every((e) => e?.code === status.RESOURCE_EXHAUSTED && reasonOf(e) === 'OUT_OF_FILE_DESCRIPTORS')).toBe(true);
    expect(held.ended[0]?.details).toMatch(/no file descriptors left.*ulimit -n/);
    expect(s.stderr().match(/no file descriptors left/g)).toHaveLength(1);
    held.cancel();
    // Once the streams are cancelled, their descriptors come back and a whole upload goes through.
    let answer: { sizeBytes: number } | null = null;
    for (let i = 0; i < 50 && answer === null; i++) {
      answer = await new Promise<{ sizeBytes: number } | null>((resolve) => {
        const c = s.app.uploadModuleFile(s.meta, (e, r) => resolve(e ? null : { sizeBytes: r!.sizeBytes }));
        c.write({ moduleFile: { $case: 'moduleFileInfo', value: { moduleId: held.moduleId, version: '2.0.0', platform: 'linux/any' } }, writeOffset: 0 });
        c.write({ moduleFile: { $case: 'file', value: Buffer.from('whole file') }, writeOffset: 0 });
        c.end();
      });
      if (answer === null) await new Promise((r) => setTimeout(r, 100));
    }
    expect(answer).toEqual({ sizeBytes: 10 });
  }, 60_000);
});

let previous = -1;
/** The count, once it stopped growing between two looks 50 ms apart. */
function lastCount(list: readonly unknown[]): number {
  const stable = list.length === previous;
  previous = list.length;
  return stable ? list.length : -1;
}

async function addressOf(s: Started): Promise<string> {
  return s.app.getChannel().getTarget().replace(/^dns:/, '');
}
