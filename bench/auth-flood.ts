/**
 * Issue #5: a valid sign-in while 200 wrong-key Authenticate calls are in flight must take at most 2×
 * its unloaded time. The service runs in its own process, as it does in the app; the flood comes from
 * another process (so the measuring client's event loop is not the one answering the flood), on its
 * own connection, and is kept at 200 calls in flight for the whole measurement (each answered call
 * is replaced at once): harsher than a single burst of 200.
 *
 *   npm run bench -- auth-flood
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { credentials } from '@grpc/grpc-js';
import { AuthServiceClient } from '../proto/gen/fleet/auth/v1/auth';
import { machine, ms, percentile, report, startServiceProcess } from './lib';

const FLOOD = 200;
const SAMPLES = 200;
const WARMUP = 20;

function client(address: string): AuthServiceClient {
  // A connection of its own: grpc-js would otherwise share one subchannel between clients of a target.
  return new AuthServiceClient(address, credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 });
}

function authenticate(c: AuthServiceClient, entity: string, payload: string): Promise<boolean> {
  return new Promise((resolve) => c.authenticate({ entity, credentials: { type: 'api-key', payload } }, (error) => resolve(error === null)));
}

/** Child mode: keep FLOOD wrong-key calls in flight until told to stop; report how many were answered. */
async function flood(address: string, keyId: string): Promise<void> {
  const c = client(address);
  let running = true;
  let answered = 0;
  process.on('message', (m) => {
    if (m === 'stop') running = false;
  });
  const wrong = 'x'.repeat(43);
  const lane = async () => {
    while (running) {
      if (await authenticate(c, keyId, wrong)) throw new Error('a wrong key signed in');
      answered += 1;
    }
  };
  const lanes = Array.from({ length: FLOOD }, lane);
  // Tell the parent once the flood is at full strength.
  await new Promise((r) => setTimeout(r, 500));
  process.send!({ type: 'flooding' });
  await Promise.all(lanes);
  process.send!({ type: 'done', answered });
  c.close();
  // The IPC channel would keep both processes alive.
  process.disconnect();
}

async function signIns(c: AuthServiceClient, keyId: string, key: string, n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    if (!(await authenticate(c, keyId, key))) throw new Error('the valid key was refused');
    times.push(performance.now() - start);
  }
  return times;
}

async function main(): Promise<boolean> {
  const service = await startServiceProcess();
  const c = client(service.address);
  try {
    await signIns(c, service.apiKeyId, service.apiKey, WARMUP);
    const unloaded = await signIns(c, service.apiKeyId, service.apiKey, SAMPLES);

    const child = fork(import.meta.filename, ['--flood', service.address, service.apiKeyId], { execArgv: ['--import', 'tsx'] });
    const [first] = (await once(child, 'message')) as [{ type: string }];
    if (first.type !== 'flooding') throw new Error('the flood did not start');
    const floodStart = performance.now();
    const loaded = await signIns(c, service.apiKeyId, service.apiKey, SAMPLES);
    const floodSeconds = (performance.now() - floodStart) / 1000;
    child.send('stop');
    const [done] = (await once(child, 'message')) as [{ type: string; answered: number }];
    await once(child, 'exit');

    const base = percentile(unloaded, 50);
    const under = percentile(loaded, 50);
    console.log(`auth-flood on ${machine()}`);
    console.log(`  unloaded sign-in: p50 ${ms(base)}, p95 ${ms(percentile(unloaded, 95))} (${SAMPLES} sign-ins)`);
    console.log(`  under a ${FLOOD}-call wrong-key flood: p50 ${ms(under)}, p95 ${ms(percentile(loaded, 95))}; the flood had ${done.answered} wrong-key calls answered (${Math.round(done.answered / floodSeconds)}/s)`);
    return report({
      name: `valid sign-in under a ${FLOOD}-call wrong-key flood (p50)`,
      ratio: under / base,
      limit: 2,
      detail: `${ms(under)} vs ${ms(base)} unloaded`,
    });
  } finally {
    c.close();
    await service.stop();
  }
}

if (process.argv[2] === '--flood') {
  await flood(process.argv[3]!, process.argv[4]!);
} else {
  const pass = await main();
  process.exitCode = pass ? 0 : 1;
}
