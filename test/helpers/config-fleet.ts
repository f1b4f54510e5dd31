/**
 * What the config and fragment tests of main stand on: a real fleet service on a loopback port (in
 * this process, so a test can stop it and start it again on the same port and data dir), and two
 * apps — real backends with their own data dirs, caches and cache workers — signed in to it with the
 * service's owner key as a remote profile: two people editing the same fleet.
 */
import { join } from 'node:path';
import { startService, type RunningService } from '../../service/server';
import { MemoryKeychain } from '../../main/keychain/keychain';
import { openTestBackend, tempDir, type TestBackend } from './backend';

export interface ConfigFleet {
  /** The first app (the one whose cache and drafts the tests look at). */
  a: TestBackend;
  /** The second app: "someone else". */
  readonly b: TestBackend;
  readonly orgId: string;
  readonly locationId: string;
  /** The service's address and owner key, for a direct client. */
  readonly target: { readonly address: string; readonly tls: false; readonly apiKeyId: string; readonly apiKey: string };
  /** Where the apps' data dirs are (`a`, `b`). */
  readonly dir: string;
  /** Stop the service (the apps go offline at their next call). */
  stopService(): Promise<void>;
  /** Start it again on the same port and data dir; resolves once both apps are back online. */
  startService(): Promise<void>;
  /** Close app `a` and open it again on the same data dir, its remote profile active (a restart of the app). */
  restartA(): Promise<void>;
  /** A new machine in the test location; answers its id and its main part's id. */
  machine(name: string): Promise<{ machineId: string; partId: string }>;
  close(): Promise<void>;
}

const timing = { retryMinMs: 100, retryMaxMs: 500, refreshMs: 60_000, deadlineMs: 5_000 };

export async function startConfigFleet(prefix: string): Promise<ConfigFleet> {
  const dir = tempDir(`fleet-desk-${prefix}-`);
  const serviceDir = join(dir.path, 'service');
  let service: RunningService | null = await startService({ listen: '127.0.0.1:0', dataDir: serviceDir, log: () => undefined });
  const address = service.address;
  const { apiKeyId, apiKey, orgId } = service.bootstrap;
  // Each app keeps its key in memory: the tests need no keychain, and two apps must not share one.
  const keychainA = new MemoryKeychain();
  const open = async (name: string, keychain: MemoryKeychain) =>
    openTestBackend(join(dir.path, name), { timing, keychain: { store: keychain, status: { available: true, reason: null } } });
  const a = await open('a', keychainA);
  const b = await open('b', new MemoryKeychain());
  for (const app of [a, b]) await app.value('profiles.add', { name: 'Fleet', address, tls: false, apiKeyId, apiKey });
  const location = await a.value('locations.create', { orgId, name: `${prefix} floor` });
  const fleet: ConfigFleet = {
    a,
    b,
    orgId,
    locationId: location.id,
    target: { address, tls: false, apiKeyId, apiKey },
    dir: dir.path,
    async stopService() {
      await service?.close();
      service = null;
    },
    async startService() {
      service = await startService({ listen: address, dataDir: serviceDir, log: () => undefined });
      // gRPC's channel backs off between attempts after the refusals: ask again until each app is back.
      for (const app of [fleet.a, b]) {
        const end = Date.now() + 20_000;
        while ((await app.value('connection.retry', {})).status !== 'online') {
          if (Date.now() > end) throw new Error('an app did not come back online after the service restarted');
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    },
    async restartA() {
      await fleet.a.close();
      fleet.a = await open('a', keychainA);
      await fleet.a.backend.start();
    },
    async machine(name) {
      const machine = await fleet.a.value('machines.create', { locationId: location.id, name });
      const parts = await fleet.a.value('machines.parts', { machineId: machine.id });
      return { machineId: machine.id, partId: parts[0]!.id };
    },
    async close() {
      await fleet.a.close();
      await b.close();
      await service?.close();
      dir.remove();
    },
  };
  return fleet;
}
