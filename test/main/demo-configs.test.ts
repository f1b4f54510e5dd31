/**
 * The demo fleet's configs as main resolves them: every part of every demo machine, through
 * config.effective (GetRobotPart, ListMachineFragments, fleetconfig in main), resolves with no
 * blocking issue — main's resolution from what ListMachineFragments answers agrees with the service,
 * which refused to store any config that did not resolve. Fragments shared across organizations,
 * nested, pinned to revisions and tags, and fragment_mods are all in the demo.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { startService, type RunningService } from '../../service/server';
import { BLOCKING_ISSUES } from '../../fleetconfig';
import { MemoryKeychain } from '../../main/keychain/keychain';
import { openTestBackend, tempDir, type TestBackend } from '../helpers/backend';

let dir: ReturnType<typeof tempDir>;
let service: RunningService;
let app: TestBackend;

beforeAll(async () => {
  dir = tempDir('fleet-desk-demo-configs-');
  service = await startService({ listen: '127.0.0.1:0', dataDir: join(dir.path, 'service'), demo: true, simulate: false, log: () => undefined });
  app = await openTestBackend(join(dir.path, 'app'), { keychain: { store: new MemoryKeychain(), status: { available: true, reason: null } } });
  await app.value('profiles.add', { name: 'Demo', address: service.address, tls: false, apiKeyId: service.bootstrap.apiKeyId, apiKey: service.bootstrap.apiKey });
}, 60_000);
afterAll(async () => {
  await app?.close();
  await service?.close();
  dir?.remove();
});

describe('the demo fleet in main', () => {
  it('resolves every part of every machine with no blocking issue, fragments from several levels and versions among them', { timeout: 120_000 }, async () => {
    const { orgs } = await app.value('orgs.list', {});
    let parts = 0;
    let withFragments = 0;
    let nested = 0;
    let pinned = 0;
    let mods = 0;
    for (const org of orgs) {
      for (const machine of await app.value('machines.summaries', { orgId: org.id })) {
        for (const part of machine.parts) {
          const e = await app.value('config.effective', { partId: part.id });
          expect(e.issues.filter((i) => BLOCKING_ISSUES.has(i.kind)), `${org.name} / ${machine.machineName} / ${part.name}`).toEqual([]);
          parts += 1;
          if (e.fragments.length > 0) withFragments += 1;
          if (e.fragments.some((f) => f.depth > 1)) nested += 1;
          if (e.fragments.some((f) => f.version !== undefined)) pinned += 1;
          if (e.mods.some((m) => m.applied)) mods += 1;
        }
      }
    }
    expect(parts).toBeGreaterThan(20);
    expect(withFragments).toBeGreaterThan(0);
    expect(nested).toBeGreaterThan(0);
    expect(pinned).toBeGreaterThan(0);
    expect(mods).toBeGreaterThan(0);
  });
});
