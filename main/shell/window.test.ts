import { beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeBrowserWindow, fake, resetFakeElectron } from '../../test/electron/fake-electron';
import { appLocation } from './app-url';
import { BACKGROUND, createMainWindow, secureWebPreferences, WINDOW_TITLE } from './window';
import type { InitialWindowState } from './window-state';

vi.mock('electron', async () => (await import('../../test/electron/fake-electron')).electronModule);

const preload = '/opt/fleet-desk/out/preload/index.cjs';
const centered: InitialWindowState = { bounds: { width: 1280, height: 800 }, isMaximized: false };

function open(options: { state?: InitialWindowState; devServerUrl?: string; icon?: string } = {}) {
  const log = vi.fn();
  createMainWindow({
    location: appLocation({ devServerUrl: options.devServerUrl }),
    preload,
    icon: options.icon,
    state: options.state ?? centered,
    log,
  });
  const window = FakeBrowserWindow.instances.at(-1);
  if (!window) throw new Error('no window was created');
  return { window, log };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('createMainWindow', () => {
  beforeEach(resetFakeElectron);

  it('has exactly the secure webPreferences, with DevTools in development', () => {
    const { window } = open();
    expect(window.options.webPreferences).toStrictEqual({
      preload,
      devTools: true,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
    });
  });

  it('turns DevTools off in a packaged app', () => {
    fake.app.isPackaged = true;
    const { window } = open();
    expect(window.options.webPreferences).toMatchObject({ devTools: false, sandbox: true, contextIsolation: true });
    expect(secureWebPreferences(preload, { devTools: false }).devTools).toBe(false);
    expect(secureWebPreferences(preload, { devTools: true }).devTools).toBe(true);
  });

  it('starts hidden, titled, centered at the default size, and shows on ready-to-show', () => {
    const { window } = open();
    expect(window.options).toMatchObject({ show: false, title: WINDOW_TITLE, width: 1280, height: 800, center: true });
    expect(window.options).not.toHaveProperty('x');
    expect(window.options).not.toHaveProperty('icon');
    expect(window.show).not.toHaveBeenCalled();
    window.emit('ready-to-show');
    expect(window.show).toHaveBeenCalledOnce();
    expect(window.maximize).not.toHaveBeenCalled();
  });

  it('restores saved bounds and maximizes before showing', () => {
    const { window } = open({ state: { bounds: { x: 10, y: 20, width: 900, height: 700 }, isMaximized: true }, icon: '/i.png' });
    expect(window.options).toMatchObject({ x: 10, y: 20, width: 900, height: 700, center: false, icon: '/i.png' });
    window.emit('ready-to-show');
    expect(window.maximize).toHaveBeenCalledOnce();
    expect(window.show).toHaveBeenCalledOnce();
  });

  it('follows the OS theme for the first paint', () => {
    expect(open().window.options.backgroundColor).toBe(BACKGROUND.light);
    fake.nativeTheme.shouldUseDarkColors = true;
    expect(open().window.options.backgroundColor).toBe(BACKGROUND.dark);
  });

  it('loads the built page from app://fleet-desk/, never file://, or the dev server URL in dev', () => {
    const built = open().window;
    expect(built.loadURL).toHaveBeenCalledExactlyOnceWith('app://fleet-desk/index.html');
    expect(built.loadFile).not.toHaveBeenCalled();
    const dev = open({ devServerUrl: 'http://localhost:5173' }).window;
    expect(dev.loadURL).toHaveBeenCalledExactlyOnceWith('http://localhost:5173/');
    expect(dev.loadFile).not.toHaveBeenCalled();
  });

  it('shows the window anyway when the page fails to load', async () => {
    FakeBrowserWindow.loadFailure = new Error('ERR_FILE_NOT_FOUND');
    const { window, log } = open();
    await flush();
    expect(window.show).toHaveBeenCalledOnce();
    expect(log).toHaveBeenCalledWith(expect.stringContaining('ERR_FILE_NOT_FOUND'));
    window.emit('ready-to-show');
    expect(window.show).toHaveBeenCalledOnce();
  });
});

describe('Back and Forward from the OS', () => {
  beforeEach(resetFakeElectron);

  /** A window whose page has opened three routes, now on the last one. */
  function withHistory() {
    const { window } = open();
    const history = window.webContents.navigationHistory;
    history.push('app://fleet-desk/index.html#/orgs/O/training');
    history.push('app://fleet-desk/index.html#/orgs/O/parts/P/logs');
    return { window, history };
  }

  it('app-command browser-backward/-forward walk the history (mouse buttons, browser keys: Windows, Linux)', () => {
    const { window, history } = withHistory();
    window.emit('app-command', {}, 'browser-backward');
    expect(history.current()).toBe('app://fleet-desk/index.html#/orgs/O/training');
    window.emit('app-command', {}, 'browser-backward');
    expect(history.current()).toBe('app://fleet-desk/index.html');
    window.emit('app-command', {}, 'browser-forward');
    expect(history.current()).toBe('app://fleet-desk/index.html#/orgs/O/training');
    expect(history.goBack).toHaveBeenCalledTimes(2);
    expect(history.goForward).toHaveBeenCalledOnce();
  });

  it('swipe left goes back and right goes forward (macOS)', () => {
    const { window, history } = withHistory();
    window.emit('swipe', {}, 'left');
    expect(history.current()).toBe('app://fleet-desk/index.html#/orgs/O/training');
    window.emit('swipe', {}, 'right');
    expect(history.current()).toBe('app://fleet-desk/index.html#/orgs/O/parts/P/logs');
  });

  it('does not ask for a step the history cannot take', () => {
    const { window } = open();
    const history = window.webContents.navigationHistory;
    expect(history.entries).toEqual(['app://fleet-desk/index.html']); // the page itself, nothing to go back to
    window.emit('app-command', {}, 'browser-backward');
    window.emit('swipe', {}, 'left');
    window.emit('app-command', {}, 'browser-forward');
    window.emit('swipe', {}, 'right');
    expect(history.goBack).not.toHaveBeenCalled();
    expect(history.goForward).not.toHaveBeenCalled();
  });

  it('ignores other app commands and swipe directions', () => {
    const { window, history } = withHistory();
    history.goBack(); // so that either way would be possible
    history.goBack.mockClear();
    for (const command of ['browser-refresh', 'browser-home', 'media-play-pause', 'volume-up']) window.emit('app-command', {}, command);
    for (const direction of ['up', 'down']) window.emit('swipe', {}, direction);
    expect(history.goBack).not.toHaveBeenCalled();
    expect(history.goForward).not.toHaveBeenCalled();
  });

  it('does nothing once the window is gone', () => {
    const { window, history } = withHistory();
    window.close();
    window.emit('app-command', {}, 'browser-backward');
    window.emit('swipe', {}, 'left');
    expect(history.goBack).not.toHaveBeenCalled();
  });
});

describe('closing with unsaved changes', () => {
  beforeEach(() => resetFakeElectron());

  it('asks, defaulting to Stay; Leave lets the page unload', () => {
    const { window } = open();
    const stay = { preventDefault: vi.fn() };
    window.webContents.emit('will-prevent-unload', stay);
    expect(fake.dialog.showMessageBoxSync).toHaveBeenCalledOnce();
    const [, options] = fake.dialog.showMessageBoxSync.mock.calls[0] as [unknown, { buttons: string[]; defaultId: number; cancelId: number }];
    expect(options.buttons).toEqual(['Leave', 'Stay']);
    expect([options.defaultId, options.cancelId]).toEqual([1, 1]);
    expect(stay.preventDefault).not.toHaveBeenCalled();
    fake.dialog.showMessageBoxSync.mockReturnValueOnce(0);
    const leave = { preventDefault: vi.fn() };
    window.webContents.emit('will-prevent-unload', leave);
    expect(leave.preventDefault).toHaveBeenCalledOnce();
  });
});
