import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fake, resetFakeElectron } from '../../test/electron/fake-electron';
import { APP_SCHEME_PRIVILEGES, handleAppScheme, registerAppScheme } from './app-scheme';

vi.mock('electron', async () => (await import('../../test/electron/fake-electron')).electronModule);

let dir: string;
beforeEach(() => {
  resetFakeElectron();
  dir = mkdtempSync(join(tmpdir(), 'fleet-app-scheme-'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Fleet Desk</title>');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the app scheme', () => {
  it('is registered as a standard, secure scheme with fetch, and nothing that loosens security', () => {
    registerAppScheme();
    expect(fake.protocol.registerSchemesAsPrivileged).toHaveBeenCalledExactlyOnceWith([APP_SCHEME_PRIVILEGES]);
    expect(APP_SCHEME_PRIVILEGES).toStrictEqual({
      scheme: 'app',
      privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true },
    });
  });

  it('serves the renderer folder on app://fleet-desk/ with the given policy', async () => {
    handleAppScheme(dir, "default-src 'none'");
    expect(fake.protocol.handle).toHaveBeenCalledExactlyOnceWith('app', expect.any(Function));
    const page = await fake.protocol.fetch('app://fleet-desk/index.html');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe("default-src 'none'");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await page.text()).toContain('Fleet Desk');
    expect((await fake.protocol.fetch('app://other-host/index.html')).status).toBe(404);
  });
});
