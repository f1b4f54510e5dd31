import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IPC_EVENT, IPC_INVOKE } from '../../common/bridge';
import { channelNames } from '../../common/channel-names';
import type { ProfilesState } from '../../common/profiles';
import { EventBus } from '../backend/events';
import type { Handlers } from '../backend/router';
import { fake, FakeBrowserWindow, FakeNotification, FakeWebFrame, resetFakeElectron, type HeadersDetails } from '../../test/electron/fake-electron';
import { CONTENT_SECURITY_POLICY, devContentSecurityPolicy } from '../security/csp';
import { APP_SCHEME_PRIVILEGES } from './app-scheme';
import { FRAME_WAIT_MS, runShell, type ShellBackend, type ShellOptions } from './lifecycle';
import { spawnServiceInUtilityProcess } from './utility-service';

vi.mock('electron', async () => (await import('../../test/electron/fake-electron')).electronModule);

const paths = {
  preload: '/opt/fleet-desk/out/preload/index.cjs',
  rendererDir: '/opt/fleet-desk/out/renderer',
  serviceEntry: '/opt/fleet-desk/out/main/service.js',
};
const appUrl = 'app://fleet-desk/index.html';

/** A stand-in for main/backend/backend.ts's Backend: these tests are about the shell around it. */
function fakeBackend() {
  const handled: string[] = [];
  const handlers = Object.fromEntries(
    channelNames.map((name) => [name, vi.fn(async () => {
      handled.push(name);
      return name;
    })]),
  ) as unknown as Handlers;
  return {
    handled,
    handlers,
    events: new EventBus(),
    // Never settles by default: nothing in the shell may wait for it.
    start: vi.fn((): Promise<void> => new Promise(() => {})),
    close: vi.fn(async (): Promise<void> => {}),
    indexPage: vi.fn((html: string) => html.replace('<!--fleet-frame-->', '<div class="boot-rows">drawn</div>')),
  } satisfies ShellBackend & { handled: string[] };
}

const flush = async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

let userData: string;
beforeEach(() => {
  resetFakeElectron();
  userData = mkdtempSync(join(tmpdir(), 'fleet-shell-'));
  fake.app.userData = userData;
});
afterEach(() => {
  rmSync(userData, { recursive: true, force: true });
});

function run(overrides: Partial<ShellOptions> = {}) {
  const backend = fakeBackend();
  const openBackend = vi.fn(async () => backend);
  const log = vi.fn();
  const running = runShell({ openBackend, paths, log, ...overrides });
  return { backend, openBackend, log, running };
}

async function started(overrides: Partial<ShellOptions> = {}) {
  const shell = run(overrides);
  fake.app.becomeReady();
  await flush();
  return shell;
}

function windowAt(index = 0): FakeBrowserWindow {
  const window = FakeBrowserWindow.instances[index];
  if (!window) throw new Error(`no window #${index}`);
  return window;
}

function invoke(options: { id: number; url?: string }, channel: string) {
  const handler = fake.ipcMain.handlers.get(IPC_INVOKE);
  if (!handler) throw new Error('no IPC handler registered');
  return handler({ sender: { id: options.id }, senderFrame: new FakeWebFrame(options.url ?? appUrl) }, channel, {});
}

describe('user data folder', () => {
  it('uses the given folder for the backend and the single-instance lock', async () => {
    const { openBackend } = await started({ userDataDir: '/tmp/fleet-desk-other-data' });
    expect(fake.app.setPath).toHaveBeenCalledWith('userData', '/tmp/fleet-desk-other-data');
    expect(fake.app.setPath.mock.invocationCallOrder[0]!).toBeLessThan(fake.app.requestSingleInstanceLock.mock.invocationCallOrder[0]!);
    expect(openBackend).toHaveBeenCalledWith(expect.objectContaining({ userDataDir: '/tmp/fleet-desk-other-data' }));
  });

  it("keeps Electron's own folder when none is given", async () => {
    await started();
    expect(fake.app.setPath).not.toHaveBeenCalled();
  });
});

describe('save dialog', () => {
  it('asks where to save an export in the Downloads folder, and answers null when the user cancels', async () => {
    const { openBackend } = await started();
    const { chooseSavePath } = (openBackend.mock.calls[0] as unknown as [{ chooseSavePath: (name: string) => Promise<string | null> }])[0];
    fake.dialog.showSaveDialog.mockResolvedValueOnce({ canceled: false, filePath: '/home/user/Downloads/rover-main.log' });
    expect(await chooseSavePath('rover-main.log')).toBe('/home/user/Downloads/rover-main.log');
    expect(fake.dialog.showSaveDialog.mock.calls.at(-1)?.at(-1)).toMatchObject({ defaultPath: '/home/user/Downloads/rover-main.log' });
    fake.dialog.showSaveDialog.mockResolvedValueOnce({ canceled: true });
    expect(await chooseSavePath('x.log')).toBeNull();
  });
});

describe('open dialog', () => {
  it('asks which module files to upload (several at once), and answers [] when the user cancels', async () => {
    const { openBackend } = await started();
    const { chooseOpenPaths } = (openBackend.mock.calls[0] as unknown as [{ chooseOpenPaths: (o: { title: string; filters: { name: string; extensions: string[] }[] }) => Promise<string[]> }])[0];
    fake.dialog.showOpenDialog.mockResolvedValueOnce({ canceled: false, filePaths: ['/home/user/a.tar.gz', '/home/user/b.tar.gz'] });
    const filters = [{ name: 'Module archives', extensions: ['gz', 'tgz'] }];
    expect(await chooseOpenPaths({ title: 'Upload module files', filters })).toEqual(['/home/user/a.tar.gz', '/home/user/b.tar.gz']);
    expect(fake.dialog.showOpenDialog.mock.calls.at(-1)?.at(-1)).toMatchObject({ filters, properties: ['openFile', 'multiSelections'] });
    fake.dialog.showOpenDialog.mockResolvedValueOnce({ canceled: true, filePaths: [] });
    expect(await chooseOpenPaths({ title: 'x', filters })).toEqual([]);
  });
});

describe('training notifications and badge', () => {
  type Notify = (n: { title: string; body: string; orgId: string; jobId: string }) => boolean;
  it('shows a desktop notification that brings the window forward on the job when clicked', async () => {
    const { openBackend } = await started();
    const { notify } = (openBackend.mock.calls[0] as unknown as [{ notify: Notify }])[0];
    expect(notify({ title: 'Training succeeded: yard 4', body: 'The model is in the registry.', orgId: 'o1', jobId: 'j1' })).toBe(true);
    const [shown] = FakeNotification.instances;
    expect(shown?.shown).toBe(true);
    expect(shown?.options).toEqual({ title: 'Training succeeded: yard 4', body: 'The model is in the registry.' });
    const window = windowAt();
    window.finishLoad();
    window.minimized = true;
    shown?.click();
    expect(window.restore).toHaveBeenCalledOnce();
    expect(window.focus).toHaveBeenCalledOnce();
    expect(window.isMinimized()).toBe(false);
    expect(window.webContents.send).toHaveBeenCalledWith(IPC_EVENT, 'training.open', { orgId: 'o1', jobId: 'j1' });
  });

  it('a click with no window left (macOS) opens one and tells its page once it has loaded', async () => {
    const { openBackend } = await started();
    const { notify } = (openBackend.mock.calls[0] as unknown as [{ notify: Notify }])[0];
    notify({ title: 't', body: 'b', orgId: 'o2', jobId: 'j2' });
    windowAt().close();
    expect(FakeBrowserWindow.instances.filter((w) => !w.isDestroyed())).toHaveLength(0);
    FakeNotification.instances[0]?.click();
    const opened = FakeBrowserWindow.instances.at(-1)!;
    expect(opened.isDestroyed()).toBe(false);
    // Nothing is sent to a page that does not listen yet; once loaded, it is told.
    expect(opened.webContents.send).not.toHaveBeenCalled();
    opened.finishLoad();
    expect(opened.webContents.send).toHaveBeenCalledExactlyOnceWith(IPC_EVENT, 'training.open', { orgId: 'o2', jobId: 'j2' });
  });

  it('answers false where the desktop has no notifications, so the page shows its own', async () => {
    const { openBackend } = await started();
    const { notify } = (openBackend.mock.calls[0] as unknown as [{ notify: Notify }])[0];
    FakeNotification.supported = false;
    expect(notify({ title: 't', body: 'b', orgId: 'o', jobId: 'j' })).toBe(false);
    expect(FakeNotification.instances).toHaveLength(0);
  });

  it('puts the count of running jobs on the app icon', async () => {
    const { openBackend } = await started();
    const { setBadge } = (openBackend.mock.calls[0] as unknown as [{ setBadge: (n: number) => void }])[0];
    setBadge(3);
    setBadge(0);
    expect(fake.app.setBadgeCount.mock.calls).toEqual([[3], [0]]);
  });
});

describe('single instance', () => {
  it('a second instance quits without opening anything', async () => {
    fake.app.hasLock = false;
    const { running, openBackend } = run();
    expect(running).toBe(false);
    expect(fake.app.quit).toHaveBeenCalledOnce();
    fake.app.becomeReady();
    await flush();
    expect(openBackend).not.toHaveBeenCalled();
    expect(FakeBrowserWindow.instances).toEqual([]);
    expect(fake.ipcMain.handlers.size).toBe(0);
    expect(fake.app.listenerCount('before-quit')).toBe(0);
    // Only the instance that stays registers the link scheme and listens for links.
    expect(fake.app.setAsDefaultProtocolClient).not.toHaveBeenCalled();
    expect(fake.app.listenerCount('open-url')).toBe(0);
  });

  it('the first instance brings its window forward when a second one starts', async () => {
    await started();
    const window = windowAt();
    window.minimized = true;
    fake.app.emit('second-instance', {}, [], '/');
    expect(window.restore).toHaveBeenCalledOnce();
    expect(window.show).toHaveBeenCalled();
    expect(window.focus).toHaveBeenCalledOnce();
    expect(FakeBrowserWindow.instances).toHaveLength(1);
  });
});

describe('startup', () => {
  it('opens the backend with userData and the service entry, then a secure window, without waiting for start()', async () => {
    const { openBackend, backend, running } = await started();
    expect(running).toBe(true);
    expect(fake.app.enableSandbox).toHaveBeenCalledOnce();
    expect(openBackend).toHaveBeenCalledExactlyOnceWith(expect.objectContaining({ userDataDir: userData, serviceEntry: paths.serviceEntry }));
    // The service runs in an Electron utility process: the packaged app's RunAsNode fuse is off.
    expect(openBackend).toHaveBeenCalledWith(expect.objectContaining({ spawnService: spawnServiceInUtilityProcess }));
    expect(backend.start).toHaveBeenCalledOnce(); // and it never settles
    expect(FakeBrowserWindow.instances).toHaveLength(1);
    const window = windowAt();
    expect(window.options.webPreferences).toMatchObject({ sandbox: true, contextIsolation: true, nodeIntegration: false, preload: paths.preload });
    expect(window.loadURL).toHaveBeenCalledExactlyOnceWith(appUrl);
    expect(window.loadFile).not.toHaveBeenCalled();
    expect(fake.Menu.setApplicationMenu).toHaveBeenCalledOnce();
    expect(fake.session.defaultSession.setPermissionCheckHandler).toHaveBeenCalledOnce();
  });

  it('answers the app window over IPC and refuses everyone else', async () => {
    const { backend } = await started();
    const window = windowAt();
    const id = window.webContents.id;
    expect(await invoke({ id }, 'profiles.list')).toEqual({ ok: true, value: 'profiles.list' });
    expect(await invoke({ id, url: 'https://evil.example/' }, 'profiles.list')).toMatchObject({ error: { kind: 'permission-denied' } });
    expect(await invoke({ id, url: 'file:///opt/fleet-desk/out/renderer/index.html' }, 'profiles.list')).toMatchObject({ error: { kind: 'permission-denied' } });
    expect(await invoke({ id: id + 1000 }, 'profiles.list')).toMatchObject({ error: { kind: 'permission-denied' } });
    window.close();
    expect(await invoke({ id }, 'profiles.list')).toMatchObject({ error: { kind: 'permission-denied' } });
    expect(backend.handled).toEqual(['profiles.list']);
  });

  it('forwards backend events to every open window', async () => {
    const { backend } = await started();
    fake.app.emit('activate');
    expect(FakeBrowserWindow.instances).toHaveLength(1); // one is open: activate adds none
    const payload = { profiles: [], activeId: null, keychain: { available: true, reason: null } } satisfies ProfilesState;
    backend.events.emit('profiles.changed', payload);
    const window = windowAt();
    expect(window.webContents.send).toHaveBeenCalledExactlyOnceWith(IPC_EVENT, 'profiles.changed', payload);
    window.close();
    backend.events.emit('profiles.changed', payload);
    expect(window.webContents.send).toHaveBeenCalledOnce();
  });

  it('adds the strict CSP header in a build and the dev policy with a dev server', async () => {
    const policyAdded = () => {
      const listener = fake.session.defaultSession.webRequest.onHeadersReceived.mock.calls.at(-1)?.[0] as
        | ((d: HeadersDetails, cb: (r: { responseHeaders?: Record<string, string[]> }) => void) => void)
        | undefined;
      let headers: Record<string, string[]> | undefined;
      listener?.({ url: 'http://localhost:5173/', responseHeaders: {} }, (r) => (headers = r.responseHeaders));
      return headers?.['Content-Security-Policy'];
    };
    await started();
    expect(policyAdded()).toEqual([CONTENT_SECURITY_POLICY]);

    resetFakeElectron();
    fake.app.userData = userData;
    await started({ devServerUrl: 'http://localhost:5173' });
    expect(policyAdded()).toEqual([devContentSecurityPolicy('http://localhost:5173')]);
    expect(windowAt(0).loadURL).toHaveBeenCalledWith('http://localhost:5173/');
  });

  it('ignores ELECTRON_RENDERER_URL in a packaged app', async () => {
    fake.app.isPackaged = true;
    await started({ devServerUrl: 'http://localhost:5173' });
    const window = windowAt();
    expect(window.loadURL).toHaveBeenCalledExactlyOnceWith(appUrl);
    expect(fake.protocol.isProtocolHandled('app')).toBe(true);
  });

  it('reports a backend that cannot open, answers calls with an error, and quits', async () => {
    const { log } = await started({ openBackend: vi.fn(async () => Promise.reject(new Error('database is locked'))) });
    expect(fake.dialog.showErrorBox).toHaveBeenCalledWith(expect.any(String), expect.stringContaining('database is locked'));
    expect(fake.app.quit).toHaveBeenCalled();
    expect(log).toHaveBeenCalledWith(expect.stringContaining('database is locked'));
    const window = windowAt();
    expect(await invoke({ id: window.webContents.id }, 'profiles.list')).toMatchObject({ ok: false, error: { kind: 'internal' } });
  });
});

describe('the app:// scheme', () => {
  function renderer(): string {
    const dir = join(userData, 'renderer');
    mkdirSync(join(dir, 'assets'), { recursive: true });
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Fleet Desk</title>');
    writeFileSync(join(dir, 'assets', 'index.js'), 'export {};');
    writeFileSync(join(userData, 'secret.txt'), 'not for the page');
    return dir;
  }

  it('is registered as privileged before ready, and handled after it, before the window loads', async () => {
    const rendererDir = renderer();
    run({ paths: { ...paths, rendererDir } });
    expect(fake.protocol.registerSchemesAsPrivileged).toHaveBeenCalledExactlyOnceWith([APP_SCHEME_PRIVILEGES]);
    expect(fake.protocol.handle).not.toHaveBeenCalled();
    fake.app.becomeReady();
    await flush();
    expect(fake.protocol.handle).toHaveBeenCalledExactlyOnceWith('app', expect.any(Function));
    expect(fake.protocol.handle.mock.invocationCallOrder[0]!).toBeLessThan(windowAt().loadURL.mock.invocationCallOrder[0]!);
  });

  it('serves out/renderer with the CSP header, and nothing outside it', async () => {
    const rendererDir = renderer();
    run({ paths: { ...paths, rendererDir } });
    fake.app.becomeReady();
    await flush();
    const page = await fake.protocol.fetch(appUrl);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>Fleet Desk</title>');
    expect(page.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await fake.protocol.fetch('app://fleet-desk/assets/index.js')).headers.get('content-type')).toMatch(/^text\/javascript/);
    const escape = await fake.protocol.fetch('app://fleet-desk/%2e%2e/secret.txt');
    expect(escape.status).toBe(404);
    expect(escape.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
  });

  it("serves index.html with the fleet tree the backend draws into it, or plain if the backend has not opened within FRAME_WAIT_MS", async () => {
    const rendererDir = renderer();
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><div class="boot-sidebar"><!--fleet-frame--></div>');
    run({ paths: { ...paths, rendererDir } });
    fake.app.becomeReady();
    await flush();
    expect(await (await fake.protocol.fetch(appUrl)).text()).toBe('<!doctype html><div class="boot-sidebar"><div class="boot-rows">drawn</div></div>');

    resetFakeElectron();
    fake.app.userData = userData;
    const backend = fakeBackend();
    let open!: (b: typeof backend) => void;
    run({ paths: { ...paths, rendererDir }, openBackend: vi.fn(() => new Promise<typeof backend>((resolve) => (open = resolve))) });
    fake.app.becomeReady();
    await flush();
    const started = Date.now();
    const plain = await fake.protocol.fetch(appUrl);
    expect(Date.now() - started).toBeGreaterThanOrEqual(FRAME_WAIT_MS - 20);
    expect(await plain.text()).toBe('<!doctype html><div class="boot-sidebar"><!--fleet-frame--></div>');
    open(backend);
    await flush();
    expect(await (await fake.protocol.fetch(appUrl)).text()).toContain('<div class="boot-rows">drawn</div>');

    // A backend that cannot open (reported elsewhere): the built page, at once.
    resetFakeElectron();
    fake.app.userData = userData;
    run({ paths: { ...paths, rendererDir }, openBackend: vi.fn(() => Promise.reject(new Error('database is locked'))) });
    fake.app.becomeReady();
    await flush();
    expect(await (await fake.protocol.fetch(appUrl)).text()).toBe('<!doctype html><div class="boot-sidebar"><!--fleet-frame--></div>');
  });

  it('is not handled when the dev server serves the page', async () => {
    await started({ devServerUrl: 'http://localhost:5173' });
    expect(fake.protocol.handle).not.toHaveBeenCalled();
  });
});

describe('deep links', () => {
  const navigate = (route: string) => [IPC_EVENT, 'app.navigate', { route }];

  /** Runs the shell as started by the OS with `args` after the executable (process.argv is read at once). */
  function runWithArgs(args: string[]) {
    const argv = process.argv;
    process.argv = [argv[0] ?? 'fleet-desk', ...args];
    try {
      return run();
    } finally {
      process.argv = argv;
    }
  }

  it('registers the fleet-desk scheme in a packaged app, before ready', () => {
    fake.app.isPackaged = true;
    run();
    expect(fake.app.setAsDefaultProtocolClient).toHaveBeenCalledExactlyOnceWith('fleet-desk');
    expect(fake.app.isReady()).toBe(false);
  });

  it('opens the route of the link the app was started with, once the first page has loaded (Windows, Linux)', async () => {
    runWithArgs(['--no-sandbox', 'fleet-desk://orgs/O/training']);
    fake.app.becomeReady();
    await flush();
    expect(FakeBrowserWindow.instances).toHaveLength(1);
    const window = windowAt();
    expect(window.webContents.send).not.toHaveBeenCalled();
    window.finishLoad();
    expect(window.webContents.send).toHaveBeenCalledExactlyOnceWith(...navigate('/orgs/O/training'));
    // The first window is shown by ready-to-show, not forced forward early.
    expect(window.show).not.toHaveBeenCalled();
  });

  it('queues a link macOS opens before ready, and opens it in the first window once loaded', async () => {
    run();
    const event = { preventDefault: vi.fn() };
    fake.app.emit('open-url', event, 'fleet-desk://registry/items/acme:nav');
    expect(event.preventDefault).toHaveBeenCalledOnce();
    fake.app.becomeReady();
    await flush();
    expect(FakeBrowserWindow.instances).toHaveLength(1);
    windowAt().finishLoad();
    expect(windowAt().webContents.send).toHaveBeenCalledExactlyOnceWith(...navigate('/registry/items/acme:nav'));
  });

  it('a link opened while running brings the window forward on the route (macOS open-url)', async () => {
    await started();
    const window = windowAt();
    window.finishLoad();
    window.minimized = true;
    fake.app.emit('open-url', { preventDefault: vi.fn() }, 'fleet-desk:///orgs/O/parts/P/logs?level=error');
    expect(window.restore).toHaveBeenCalledOnce();
    expect(window.focus).toHaveBeenCalledOnce();
    expect(window.webContents.send).toHaveBeenCalledExactlyOnceWith(...navigate('/orgs/O/parts/P/logs?level=error'));
  });

  it('a link with no window left (macOS) opens one and tells its page once it has loaded', async () => {
    await started();
    windowAt(0).close();
    fake.app.emit('open-url', { preventDefault: vi.fn() }, 'fleet-desk://orgs/O/training');
    expect(FakeBrowserWindow.instances).toHaveLength(2);
    const opened = windowAt(1);
    expect(opened.webContents.send).not.toHaveBeenCalled();
    opened.finishLoad();
    expect(opened.webContents.send).toHaveBeenCalledExactlyOnceWith(...navigate('/orgs/O/training'));
  });

  it("a second instance's link brings the window forward on the route (Windows, Linux)", async () => {
    await started();
    const window = windowAt();
    window.finishLoad();
    window.minimized = true;
    fake.app.emit('second-instance', {}, ['C:\\Fleet Desk\\Fleet Desk.exe', '--original-process-start-time=1', 'fleet-desk://orgs/O/training'], 'C:\\');
    expect(window.restore).toHaveBeenCalledOnce();
    expect(window.focus).toHaveBeenCalledOnce();
    expect(window.webContents.send).toHaveBeenCalledExactlyOnceWith(...navigate('/orgs/O/training'));
    expect(FakeBrowserWindow.instances).toHaveLength(1);
  });

  it("a second instance's link reaches a page still loading once it has loaded", async () => {
    await started();
    const window = windowAt();
    fake.app.emit('second-instance', {}, ['fleet-desk', 'fleet-desk://orgs/O'], '/');
    expect(window.webContents.send).not.toHaveBeenCalled();
    window.finishLoad();
    expect(window.webContents.send).toHaveBeenCalledExactlyOnceWith(...navigate('/orgs/O'));
  });

  it('refuses and logs a link that is not a route, still bringing the window forward for a second instance', async () => {
    const { log } = await started();
    const window = windowAt();
    window.finishLoad();
    fake.app.emit('second-instance', {}, ['fleet-desk', 'fleet-desk://orgs/O#/admin'], '/');
    fake.app.emit('open-url', { preventDefault: vi.fn() }, 'fleet-desk:////evil.example/');
    expect(window.focus).toHaveBeenCalledOnce(); // the second instance's; the refused open-url brings nothing forward
    expect(window.webContents.send).not.toHaveBeenCalled();
    expect(log).toHaveBeenCalledWith(expect.stringContaining('refused "fleet-desk://orgs/O#/admin"'));
    expect(log).toHaveBeenCalledWith(expect.stringContaining('refused "fleet-desk:////evil.example/"'));
  });
});

describe('windows', () => {
  it('quits when the last window closes, except on macOS', async () => {
    await started();
    fake.app.emit('window-all-closed');
    expect(fake.app.quit).toHaveBeenCalledOnce();

    const platform = Object.getOwnPropertyDescriptor(process, 'platform');
    Object.defineProperty(process, 'platform', { value: 'darwin' });
    try {
      fake.app.quit.mockClear();
      fake.app.emit('window-all-closed');
      expect(fake.app.quit).not.toHaveBeenCalled();
    } finally {
      if (platform) Object.defineProperty(process, 'platform', platform);
    }
  });

  it('re-creates the window on activate when none is open', async () => {
    await started();
    windowAt(0).close();
    fake.app.emit('activate');
    expect(FakeBrowserWindow.instances).toHaveLength(2);
    expect(windowAt(1).isDestroyed()).toBe(false);
  });
});

describe('quit', () => {
  it('holds the quit until the backend has closed, closes it once, then quits', async () => {
    const { backend } = await started();
    let finishClose: () => void = () => {};
    backend.close.mockImplementation(() => new Promise<void>((resolve) => (finishClose = resolve)));

    expect(fake.app.emitBeforeQuit()).toBe(true);
    expect(fake.app.emitBeforeQuit()).toBe(true); // a second Quit while closing
    await flush();
    expect(backend.close).toHaveBeenCalledOnce();
    expect(fake.app.quit).not.toHaveBeenCalled();

    finishClose();
    await flush();
    expect(fake.app.quit).toHaveBeenCalledOnce();
    expect(fake.app.emitBeforeQuit()).toBe(false); // the real quit now goes through
    expect(backend.close).toHaveBeenCalledOnce();
  });

  it('quits anyway when the backend does not finish closing in time', async () => {
    const { backend, log } = await started({ closeTimeoutMs: 20 });
    backend.close.mockImplementation(() => new Promise<void>(() => {}));
    fake.app.emitBeforeQuit();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(fake.app.quit).toHaveBeenCalledOnce();
    expect(log).toHaveBeenCalledWith(expect.stringContaining('did not finish'));
  });

  it('quits when the backend close fails', async () => {
    const { backend, log } = await started();
    backend.close.mockRejectedValue(new Error('service would not stop'));
    fake.app.emitBeforeQuit();
    await flush();
    expect(fake.app.quit).toHaveBeenCalledOnce();
    expect(log).toHaveBeenCalledWith(expect.stringContaining('service would not stop'));
  });
});
