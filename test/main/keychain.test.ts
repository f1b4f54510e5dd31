/**
 * The keychain against the real Secret Service (gnome-keyring on a private D-Bus session: `npm test`
 * sets one up). Where none exists the round trip is skipped and says so; under `npm test` with the
 * keyring session (FLEET_DESK_TEST_KEYRING=1) it must pass, and on CI (CI set) the keyring session is
 * required: a CI that lost it would otherwise turn every real keychain test into a silent skip.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { OsKeychain, openKeychain } from '../../main/keychain/keychain';
import { repoRoot } from '../helpers/backend';

const inKeyringSession = process.env.FLEET_DESK_TEST_KEYRING === '1';
// CI systems set CI=true (or 1); an explicit false/0 means not CI.
const onCi = process.env.CI !== undefined && !['', '0', 'false'].includes(process.env.CI.toLowerCase());
const probe = await OsKeychain.probe();
const reason = `no Secret Service answers here (${probe.reason}); run through \`npm test\`, which starts gnome-keyring on a private D-Bus session`;

describe('OS keychain (Secret Service)', () => {
  it('is available in the test keyring session (required on CI)', (ctx) => {
    // Locally outside `npm test` there is nothing to demand; on CI there is.
    if (!inKeyringSession && !onCi) ctx.skip(`not in the test keyring session: ${reason}`);
    expect(inKeyringSession, 'CI must run the tests inside the keyring session (`npm test`, or `dbus-run-session -- scripts/with-keyring.sh`)').toBe(true);
    expect(probe).toEqual({ available: true, reason: null });
  });

  it.skipIf(!probe.available)(`stores, reads, replaces and deletes a key [skipped when ${reason}]`, async () => {
    const keychain = new OsKeychain();
    const account = `test-${randomUUID()}`;
    const other = `test-${randomUUID()}`;
    expect(await keychain.get(account)).toBeNull();
    await keychain.set(account, 'first-secret');
    await keychain.set(other, 'other-secret');
    expect(await keychain.get(account)).toBe('first-secret');
    await keychain.set(account, 'second-secret');
    expect(await keychain.get(account)).toBe('second-secret');
    expect(await keychain.get(other)).toBe('other-secret');
    expect(await keychain.delete(account)).toBe(true);
    expect(await keychain.get(account)).toBeNull();
    expect(await keychain.delete(account)).toBe(false);
    expect(await keychain.delete(other)).toBe(true);
  });

  it.skipIf(!probe.available)(`openKeychain picks the OS keychain when it answers [skipped when ${reason}]`, async () => {
    const { store, status } = await openKeychain();
    expect(status.available).toBe(true);
    expect(store).toBeInstanceOf(OsKeychain);
  });

  it('falls back to a session-only store, with a reason, when no keychain answers', () => {
    // A child process with no reachable session bus: what a headless machine without a keyring looks like.
    const script = `
      import { openKeychain, MemoryKeychain } from './main/keychain/keychain.ts';
      const { store, status } = await openKeychain();
      await store.set('a', 'b');
      console.log(JSON.stringify({ ...status, memory: store instanceof MemoryKeychain, read: await store.get('a') }));
    `;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: repoRoot,
      encoding: 'utf8',
      env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/fleet-desk-test-bus' },
    });
    expect(child.status, child.stderr).toBe(0);
    const result = JSON.parse(child.stdout.trim()) as { available: boolean; reason: string; memory: boolean; read: string };
    expect(result.available).toBe(false);
    expect(result.reason.length).toBeGreaterThan(0);
    expect(result.memory).toBe(true);
    expect(result.read).toBe('b');
  });
});
