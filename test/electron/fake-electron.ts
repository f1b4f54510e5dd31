/**
 * A small stand-in for the parts of Electron's main-process API the shell uses, for unit tests
 * that mock 'electron' (Electron itself cannot run in CI here). It records what the shell asks for
 * and lets a test play the events Electron would emit. Use it as
 *   vi.mock('electron', async () => (await import('../../test/electron/fake-electron')).electronModule);
 * and call `resetFakeElectron()` in beforeEach.
 * It imports nothing from electron, so it is not bound by the layer rule on electron imports.
 */
import { EventEmitter } from 'node:events';
import { vi } from 'vitest';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export class FakeWebFrame {
  constructor(
    public url: string,
    public parent: FakeWebFrame | null = null,
  ) {}
}

export interface WindowOpenDetails {
  url: string;
}

let nextWebContentsId = 1;

export class FakeWebContents extends EventEmitter {
  readonly id = nextWebContentsId++;
  readonly send = vi.fn();
  readonly mainFrame = new FakeWebFrame('');
  destroyed = false;
  windowOpenHandler: ((details: WindowOpenDetails) => { action: string }) | undefined;

  setWindowOpenHandler(handler: (details: WindowOpenDetails) => { action: string }): void {
    this.windowOpenHandler = handler;
  }

  isDestroyed(): boolean {
    return this.destroyed;
  }
}

/** A cancellable event as Electron passes to will-navigate and friends. */
export function navigationEvent(url: string, isMainFrame = true) {
  return { url, isMainFrame, isSameDocument: false, frame: null, preventDefault: vi.fn() };
}

export interface FakeWindowOptions {
  x?: number;
  y?: number;
  width?: number;
  height?: number;
  show?: boolean;
  webPreferences?: Record<string, unknown>;
  [key: string]: unknown;
}

export class FakeBrowserWindow extends EventEmitter {
  static instances: FakeBrowserWindow[] = [];
  /** When set, every page load fails with it, as loadURL/loadFile reject on a failed navigation. */
  static loadFailure: Error | null = null;

  readonly webContents = new FakeWebContents();
  bounds: Rect;
  maximized = false;
  minimized = false;
  destroyed = false;
  readonly loadURL = vi.fn(async (_url: string) => this.#load());
  readonly loadFile = vi.fn(async (_path: string) => this.#load());
  readonly show = vi.fn();
  readonly focus = vi.fn();
  readonly restore = vi.fn(() => {
    this.minimized = false;
  });
  readonly maximize = vi.fn(() => {
    this.maximized = true;
  });

  constructor(readonly options: FakeWindowOptions = {}) {
    super();
    this.bounds = { x: options.x ?? 100, y: options.y ?? 100, width: options.width ?? 800, height: options.height ?? 600 };
    FakeBrowserWindow.instances.push(this);
    // Electron emits this for every webContents it creates; the shell's security guards hook in here.
    fake.app.emit('web-contents-created', {}, this.webContents);
  }

  async #load(): Promise<void> {
    if (FakeBrowserWindow.loadFailure) throw FakeBrowserWindow.loadFailure;
  }

  isDestroyed(): boolean {
    return this.destroyed;
  }
  isMaximized(): boolean {
    return this.maximized;
  }
  isMinimized(): boolean {
    return this.minimized;
  }
  getNormalBounds(): Rect {
    return { ...this.bounds };
  }

  /** What Electron does when the user closes the window. */
  close(): void {
    this.emit('close', { preventDefault: vi.fn() });
    this.destroyed = true;
    this.webContents.destroyed = true;
    this.emit('closed');
  }
}

class FakeApp extends EventEmitter {
  hasLock = true;
  isPackaged = false;
  readonly name = 'Fleet Desk';
  userData = '/tmp/fleet-desk-test-user-data';
  #ready = false;
  #resolveReady: () => void = () => {};
  #whenReady = new Promise<void>((resolve) => (this.#resolveReady = resolve));

  readonly requestSingleInstanceLock = vi.fn(() => this.hasLock);
  readonly quit = vi.fn();
  readonly enableSandbox = vi.fn();
  readonly setPath = vi.fn((name: string, path: string) => {
    if (name !== 'userData') throw new Error(`fake app.setPath: unexpected ${name}`);
    this.userData = path;
  });
  readonly getPath = vi.fn((name: string) => {
    if (name !== 'userData') throw new Error(`fake app.getPath: unexpected ${name}`);
    return this.userData;
  });

  whenReady(): Promise<void> {
    return this.#whenReady;
  }
  isReady(): boolean {
    return this.#ready;
  }
  /** Plays Electron's 'ready'. */
  becomeReady(): void {
    this.#ready = true;
    this.#resolveReady();
    this.emit('ready');
  }
  reset(): void {
    this.removeAllListeners();
    this.userData = '/tmp/fleet-desk-test-user-data';
    this.hasLock = true;
    this.isPackaged = false;
    this.#ready = false;
    this.#whenReady = new Promise<void>((resolve) => (this.#resolveReady = resolve));
  }
  /** Plays app.quit()'s first step; returns whether a listener vetoed it. */
  emitBeforeQuit(): boolean {
    const event = { preventDefault: vi.fn() };
    this.emit('before-quit', event);
    return event.preventDefault.mock.calls.length > 0;
  }
}

type InvokeHandler = (event: unknown, ...args: unknown[]) => unknown;

class FakeIpcMain {
  readonly handlers = new Map<string, InvokeHandler>();
  handle(channel: string, handler: InvokeHandler): void {
    if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.handlers.set(channel, handler);
  }
  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }
}

export interface HeadersDetails {
  url: string;
  responseHeaders?: Record<string, string[]>;
}

function createFake() {
  const primary: Rect = { x: 0, y: 0, width: 1920, height: 1040 };
  return {
    app: new FakeApp(),
    ipcMain: new FakeIpcMain(),
    session: {
      defaultSession: {
        setPermissionRequestHandler: vi.fn(),
        setPermissionCheckHandler: vi.fn(),
        webRequest: { onHeadersReceived: vi.fn() },
      },
    },
    shell: { openExternal: vi.fn(async (_url: string) => {}) },
    nativeTheme: { shouldUseDarkColors: false },
    screen: {
      workAreas: [primary] as Rect[],
      getAllDisplays: vi.fn((): { workArea: Rect }[] => fake.screen.workAreas.map((workArea) => ({ workArea }))),
      getPrimaryDisplay: vi.fn((): { workArea: Rect } => ({ workArea: fake.screen.workAreas[0] ?? primary })),
    },
    Menu: {
      buildFromTemplate: vi.fn((template: unknown[]) => ({ template })),
      setApplicationMenu: vi.fn(),
    },
    dialog: { showErrorBox: vi.fn() },
  };
}

export const fake = createFake();

/** What `import ... from 'electron'` yields under the mock. */
export const electronModule = {
  app: fake.app,
  ipcMain: fake.ipcMain,
  session: fake.session,
  shell: fake.shell,
  nativeTheme: fake.nativeTheme,
  screen: fake.screen,
  Menu: fake.Menu,
  dialog: fake.dialog,
  BrowserWindow: FakeBrowserWindow,
};

export function resetFakeElectron(): void {
  vi.clearAllMocks();
  fake.app.reset();
  fake.ipcMain.handlers.clear();
  fake.nativeTheme.shouldUseDarkColors = false;
  fake.screen.workAreas = [{ x: 0, y: 0, width: 1920, height: 1040 }];
  FakeBrowserWindow.instances = [];
  FakeBrowserWindow.loadFailure = null;
}
