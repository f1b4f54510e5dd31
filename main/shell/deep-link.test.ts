import { resolve } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { IPC_EVENT } from '../../common/bridge';
import { fake, FakeBrowserWindow, resetFakeElectron } from '../../test/electron/fake-electron';
import { DeepLinks, registerDeepLinkScheme, sendRoute, type ProtocolClientOptions } from './deep-link';
import type { BrowserWindow } from 'electron';

vi.mock('electron', async () => (await import('../../test/electron/fake-electron')).electronModule);

beforeEach(resetFakeElectron);

/** A window as the shell has it; `loaded` plays its page having finished loading already. */
function windowWith(options: { loaded: boolean }): FakeBrowserWindow {
  const window = new FakeBrowserWindow();
  window.webContents.loading = !options.loaded;
  return window;
}
const asWindow = (window: FakeBrowserWindow) => window as unknown as BrowserWindow;

describe('registerDeepLinkScheme', () => {
  const base: ProtocolClientOptions = {
    isPackaged: true,
    platform: 'win32',
    defaultApp: false,
    execPath: 'C:\\Program Files\\Fleet Desk\\Fleet Desk.exe',
    argv: ['C:\\Program Files\\Fleet Desk\\Fleet Desk.exe'],
  };

  it('registers the packaged app as itself, on every platform', () => {
    for (const platform of ['win32', 'darwin', 'linux'] as const) {
      fake.app.setAsDefaultProtocolClient.mockClear();
      expect(registerDeepLinkScheme({ ...base, platform }, vi.fn())).toBe(true);
      expect(fake.app.setAsDefaultProtocolClient, platform).toHaveBeenCalledExactlyOnceWith('fleet-desk');
    }
  });

  it("registers a development run on Windows as Electron's executable with the app's folder", () => {
    const registered = registerDeepLinkScheme(
      { isPackaged: false, platform: 'win32', defaultApp: true, execPath: 'C:\\src\\node_modules\\electron\\dist\\electron.exe', argv: ['electron.exe', 'app-folder'] },
      vi.fn(),
    );
    expect(registered).toBe(true);
    expect(fake.app.setAsDefaultProtocolClient).toHaveBeenCalledExactlyOnceWith('fleet-desk', 'C:\\src\\node_modules\\electron\\dist\\electron.exe', [resolve('app-folder')]);
  });

  it('does not register a development run on macOS or Linux, where only a packaged app can be registered', () => {
    for (const platform of ['darwin', 'linux'] as const) {
      expect(registerDeepLinkScheme({ ...base, isPackaged: false, defaultApp: true, platform, argv: ['electron', '.'] }, vi.fn())).toBe(false);
    }
    // Nor an unpackaged run on Windows that names no app folder.
    expect(registerDeepLinkScheme({ ...base, isPackaged: false, defaultApp: true, argv: ['electron.exe'] }, vi.fn())).toBe(false);
    expect(registerDeepLinkScheme({ ...base, isPackaged: false, defaultApp: false }, vi.fn())).toBe(false);
    expect(fake.app.setAsDefaultProtocolClient).not.toHaveBeenCalled();
  });

  it('logs a registration the OS refused', () => {
    fake.app.protocolClientResult = false;
    const log = vi.fn();
    expect(registerDeepLinkScheme(base, log)).toBe(false);
    expect(log).toHaveBeenCalledExactlyOnceWith(expect.stringContaining('could not register the fleet-desk: scheme'));
  });
});

describe('sendRoute', () => {
  it('sends app.navigate at once to a page that has loaded', () => {
    const window = windowWith({ loaded: true });
    sendRoute(asWindow(window), '/orgs/O/training');
    expect(window.webContents.send).toHaveBeenCalledExactlyOnceWith(IPC_EVENT, 'app.navigate', { route: '/orgs/O/training' });
  });

  it('waits for did-finish-load on a page still loading, and sends once', () => {
    const window = windowWith({ loaded: false });
    sendRoute(asWindow(window), '/orgs/O/training');
    expect(window.webContents.send).not.toHaveBeenCalled();
    window.finishLoad();
    expect(window.webContents.send).toHaveBeenCalledExactlyOnceWith(IPC_EVENT, 'app.navigate', { route: '/orgs/O/training' });
    window.finishLoad(); // a reload later does not repeat it
    expect(window.webContents.send).toHaveBeenCalledOnce();
  });

  it('sends nothing to a window closed before its page loaded', () => {
    const window = windowWith({ loaded: false });
    sendRoute(asWindow(window), '/');
    window.close();
    window.webContents.emit('did-finish-load');
    expect(window.webContents.send).not.toHaveBeenCalled();
  });
});

describe('DeepLinks', () => {
  function links(argv: readonly string[] = ['fleet-desk']) {
    const log = vi.fn();
    const focused = windowWith({ loaded: true });
    const focusWindow = vi.fn(() => asWindow(focused));
    return { deepLinks: new DeepLinks({ argv, log, focusWindow }), log, focusWindow, focused };
  }

  it('keeps the link the app was started with for the first window, and sends it once its page has loaded', () => {
    const { deepLinks, focusWindow, log } = links(['/opt/Fleet Desk/fleet-desk', '--no-sandbox', 'fleet-desk://orgs/O/parts/P/logs']);
    const first = windowWith({ loaded: false });
    deepLinks.started(asWindow(first));
    expect(first.webContents.send).not.toHaveBeenCalled();
    first.finishLoad();
    expect(first.webContents.send).toHaveBeenCalledExactlyOnceWith(IPC_EVENT, 'app.navigate', { route: '/orgs/O/parts/P/logs' });
    // The first window shows itself once painted: nothing focuses it early.
    expect(focusWindow).not.toHaveBeenCalled();
    expect(first.show).not.toHaveBeenCalled();
    expect(log).not.toHaveBeenCalled();
  });

  it('queues an open-url that came before the first window (macOS launch), keeping only the latest', () => {
    const { deepLinks, focusWindow } = links();
    deepLinks.openUrl('fleet-desk://orgs/A/training');
    deepLinks.openUrl('fleet-desk://orgs/B/training');
    expect(focusWindow).not.toHaveBeenCalled();
    const first = windowWith({ loaded: false });
    deepLinks.started(asWindow(first));
    first.finishLoad();
    expect(first.webContents.send).toHaveBeenCalledExactlyOnceWith(IPC_EVENT, 'app.navigate', { route: '/orgs/B/training' });
  });

  it('a refused link before the first window neither queues nor replaces one', () => {
    const { deepLinks, log } = links();
    deepLinks.openUrl('fleet-desk://orgs/A');
    deepLinks.openUrl('fleet-desk://orgs/A#x');
    expect(log).toHaveBeenCalledExactlyOnceWith(expect.stringContaining('refused "fleet-desk://orgs/A#x" from open-url'));
    const first = windowWith({ loaded: true });
    deepLinks.started(asWindow(first));
    expect(first.webContents.send).toHaveBeenCalledExactlyOnceWith(IPC_EVENT, 'app.navigate', { route: '/orgs/A' });
  });

  it('sends nothing to the first window when no link came', () => {
    const { deepLinks } = links(['/opt/Fleet Desk/fleet-desk', '--some-switch']);
    const first = windowWith({ loaded: false });
    deepLinks.started(asWindow(first));
    first.finishLoad();
    expect(first.webContents.send).not.toHaveBeenCalled();
  });

  it('refuses and logs an invalid link on the command line; the app starts as usual', () => {
    const { deepLinks, log } = links(['fleet-desk', 'fleet-desk://orgs/<script>']);
    expect(log).toHaveBeenCalledExactlyOnceWith(expect.stringContaining('refused "fleet-desk://orgs/<script>" from the command line'));
    const first = windowWith({ loaded: true });
    deepLinks.started(asWindow(first));
    expect(first.webContents.send).not.toHaveBeenCalled();
  });

  it('after start, open-url brings the window forward and opens the route', () => {
    const { deepLinks, focusWindow, focused } = links();
    deepLinks.started(asWindow(windowWith({ loaded: true })));
    deepLinks.openUrl('fleet-desk:///orgs/O/training?job=J');
    expect(focusWindow).toHaveBeenCalledOnce();
    expect(focused.webContents.send).toHaveBeenCalledExactlyOnceWith(IPC_EVENT, 'app.navigate', { route: '/orgs/O/training?job=J' });
  });

  it('after start, a refused open-url is logged and brings nothing forward', () => {
    const { deepLinks, focusWindow, focused, log } = links();
    deepLinks.started(asWindow(windowWith({ loaded: true })));
    deepLinks.openUrl('https://evil.example/');
    expect(focusWindow).not.toHaveBeenCalled();
    expect(focused.webContents.send).not.toHaveBeenCalled();
    expect(log).toHaveBeenCalledWith(expect.stringContaining('refused "https://evil.example/"'));
  });

  it("a second instance's link brings the window forward on that route", () => {
    const { deepLinks, focusWindow, focused } = links();
    deepLinks.started(asWindow(windowWith({ loaded: true })));
    deepLinks.secondInstance(['C:\\Fleet Desk\\Fleet Desk.exe', '--allow-file-access-from-files', 'fleet-desk://registry/items/acme:nav']);
    expect(focusWindow).toHaveBeenCalledOnce();
    expect(focused.webContents.send).toHaveBeenCalledExactlyOnceWith(IPC_EVENT, 'app.navigate', { route: '/registry/items/acme:nav' });
  });

  it('a second instance without a link, or with a refused one, only brings the window forward', () => {
    const { deepLinks, focusWindow, focused, log } = links();
    deepLinks.started(asWindow(windowWith({ loaded: true })));
    deepLinks.secondInstance(['fleet-desk']);
    deepLinks.secondInstance(['fleet-desk', `fleet-desk://${'a'.repeat(5000)}`]);
    expect(focusWindow).toHaveBeenCalledTimes(2);
    expect(focused.webContents.send).not.toHaveBeenCalled();
    expect(log).toHaveBeenCalledExactlyOnceWith(expect.stringContaining('from a second instance'));
    expect(log).toHaveBeenCalledWith(expect.stringContaining(`(${'fleet-desk://'.length + 5000} characters)`));
  });
});
