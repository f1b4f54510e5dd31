/**
 * A small stand-in for the parts of Electron's main-process API the shell uses, for unit tests
 * that mock 'electron' (Electron itself cannot run in CI here). It records what the shell asks for
 * and lets a test play the events Electron would emit. Use it as
 *   vi.mock('electron', async () => (await import('../../test/electron/fake-electron')).electronModule);
 * and call `resetFakeElectron()` in beforeEach.
 * It imports nothing from electron, so it is not bound by the layer rule on electron imports.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
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

/**
 * `webContents.navigationHistory`: a list of entries and the current one. A load adds an entry,
 * `push` plays the page adding one (pushState, a hash link); goBack/goForward move one entry and do
 * nothing at either end.
 */
export class FakeNavigationHistory {
  entries: string[] = [];
  index = -1;
  readonly goBack = vi.fn(() => {
    if (this.canGoBack()) this.index--;
  });
  readonly goForward = vi.fn(() => {
    if (this.canGoForward()) this.index++;
  });

  canGoBack(): boolean {
    return this.index > 0;
  }
  canGoForward(): boolean {
    return this.index < this.entries.length - 1;
  }
  /** The entry shown now. */
  current(): string | undefined {
    return this.entries[this.index];
  }
  /** Plays a new entry: the ones ahead of the current one are dropped, as a browser does. */
  push(url: string): void {
    this.entries = [...this.entries.slice(0, this.index + 1), url];
    this.index = this.entries.length - 1;
  }
}

export class FakeWebContents extends EventEmitter {
  readonly id = nextWebContentsId++;
  readonly send = vi.fn();
  readonly mainFrame = new FakeWebFrame('');
  readonly navigationHistory = new FakeNavigationHistory();
  destroyed = false;
  /** Whether the page is still loading: from loadURL/loadFile until the test's `finishLoad()`. */
  loading = false;
  windowOpenHandler: ((details: WindowOpenDetails) => { action: string }) | undefined;

  setWindowOpenHandler(handler: (details: WindowOpenDetails) => { action: string }): void {
    this.windowOpenHandler = handler;
  }

  isDestroyed(): boolean {
    return this.destroyed;
  }

  isLoading(): boolean {
    return this.loading;
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
  readonly loadURL = vi.fn(async (url: string) => this.#load(url));
  readonly loadFile = vi.fn(async (path: string) => this.#load(`file://${path}`));
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

  async #load(url: string): Promise<void> {
    this.webContents.loading = true;
    this.webContents.navigationHistory.push(url);
    if (FakeBrowserWindow.loadFailure) throw FakeBrowserWindow.loadFailure;
  }

  /** Plays the page finishing its load ('did-finish-load'). */
  finishLoad(): void {
    this.webContents.loading = false;
    this.webContents.emit('did-finish-load');
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
  readonly setBadgeCount = vi.fn((_count?: number) => true);
  /** Registering a URL scheme: answers `protocolClientResult` (the registry or LaunchServices can refuse). */
  protocolClientResult = true;
  readonly setAsDefaultProtocolClient = vi.fn((_protocol: string, _path?: string, _args?: string[]) => this.protocolClientResult);
  readonly setPath = vi.fn((name: string, path: string) => {
    if (name !== 'userData') throw new Error(`fake app.setPath: unexpected ${name}`);
    this.userData = path;
  });
  readonly getPath = vi.fn((name: string) => {
    if (name === 'downloads') return '/home/user/Downloads';
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
    this.protocolClientResult = true;
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

/** Electron's Notification: records what was shown; `click()` plays the user clicking it. */
export class FakeNotification extends EventEmitter {
  static instances: FakeNotification[] = [];
  static supported = true;
  static isSupported(): boolean {
    return FakeNotification.supported;
  }
  shown = false;
  constructor(readonly options: { title: string; body?: string }) {
    super();
    FakeNotification.instances.push(this);
  }
  show(): void {
    this.shown = true;
  }
  click(): void {
    this.emit('click', {});
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

type ProtocolHandler = (request: Request) => Response | Promise<Response>;

/** `protocol`: records privileged schemes and handlers; `fetch` plays a request through a handler. */
class FakeProtocol {
  readonly handlers = new Map<string, ProtocolHandler>();
  readonly registerSchemesAsPrivileged = vi.fn((_schemes: unknown[]) => {
    // Electron ignores (and warns about) a registration after ready; make that a test failure.
    if (fake.app.isReady()) throw new Error('fake protocol.registerSchemesAsPrivileged: called after ready');
  });
  readonly handle = vi.fn((scheme: string, handler: ProtocolHandler) => {
    if (this.handlers.has(scheme)) throw new Error(`fake protocol.handle: '${scheme}' is already handled`);
    this.handlers.set(scheme, handler);
  });
  unhandle(scheme: string): void {
    this.handlers.delete(scheme);
  }
  isProtocolHandled(scheme: string): boolean {
    return this.handlers.has(scheme);
  }
  /** What a renderer's request to `url` would get. */
  async fetch(url: string, init: { method?: string } = {}): Promise<Response> {
    const handler = this.handlers.get(new URL(url).protocol.slice(0, -1));
    if (!handler) throw new Error(`fake protocol: no handler for ${url}`);
    return handler(new Request(url, init));
  }
  reset(): void {
    this.handlers.clear();
  }
}

export interface FakeForkOptions {
  stdio?: string | string[];
  serviceName?: string;
  execArgv?: string[];
  env?: Record<string, string | undefined>;
}

/**
 * Electron's UtilityProcess as lib/browser/api/utility-process.ts builds it: stdout/stderr are
 * PassThroughs fed from the child's pipes, `pid` is undefined until 'spawn' and again after 'exit',
 * `kill()` takes no signal and does nothing (false) before 'spawn' or after 'exit', and right after
 * emitting 'exit' it removes every listener of stdout/stderr and forgets them.
 *
 * Scripted by default (`spawned`, `exited`, `stdout.write` from the test). With
 * `fake.utilityProcess.runWithNode`, it runs the entry in a real node child instead (without IPC, as a
 * utility process has none), so a supervisor can start and stop a real service through it.
 */
export class FakeUtilityProcess extends EventEmitter {
  static instances: FakeUtilityProcess[] = [];
  #pid: number | undefined;
  #stdout: PassThrough | null;
  #stderr: PassThrough | null;
  #exited = false;
  #node: ChildProcess | null = null;
  readonly kill = vi.fn((): boolean => {
    if (this.#pid === undefined || this.#exited) return false;
    if (this.#node) return this.#node.kill('SIGTERM');
    return true;
  });

  constructor(
    readonly modulePath: string,
    readonly args: string[],
    readonly options: FakeForkOptions,
  ) {
    super();
    const piped = options.stdio === 'pipe';
    this.#stdout = piped ? new PassThrough() : null;
    this.#stderr = piped ? new PassThrough() : null;
    FakeUtilityProcess.instances.push(this);
  }

  get pid(): number | undefined {
    return this.#pid;
  }
  get stdout(): PassThrough | null {
    return this.#stdout;
  }
  get stderr(): PassThrough | null {
    return this.#stderr;
  }

  /** Plays 'spawn'. */
  spawned(pid = 4242): void {
    this.#pid = pid;
    this.emit('spawn');
  }

  /** Plays the end of the process, as Electron does: 'exit', then the streams are cut loose. */
  exited(code: number): void {
    this.#exited = true;
    try {
      this.emit('exit', code);
    } finally {
      this.#pid = undefined;
      this.#stdout?.removeAllListeners();
      this.#stdout = null;
      this.#stderr?.removeAllListeners();
      this.#stderr = null;
    }
  }

  /** Runs the entry in a real node child and mirrors it. */
  startNode(): void {
    const child = spawn(process.execPath, [...(this.options.execArgv ?? []), this.modulePath, ...this.args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: process.env,
    });
    this.#node = child;
    const out = this.#stdout;
    const err = this.#stderr;
    if (out) child.stdout?.pipe(out);
    if (err) child.stderr?.pipe(err);
    child.once('spawn', () => this.spawned(child.pid));
    // Node's 'exit' can come before the last output is read, as Electron's can.
    child.once('exit', (code, signal) => this.exited(code ?? (signal === 'SIGKILL' ? 137 : 143)));
  }
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
    dialog: { showErrorBox: vi.fn(), showMessageBoxSync: vi.fn((..._args: unknown[]): number => 1), showSaveDialog: vi.fn(async (..._args: unknown[]): Promise<{ canceled: boolean; filePath?: string }> => ({ canceled: true })),
      showOpenDialog: vi.fn(async (..._args: unknown[]): Promise<{ canceled: boolean; filePaths: string[] }> => ({ canceled: true, filePaths: [] })),
    },
    protocol: new FakeProtocol(),
    utilityProcess: {
      /** Run forked entries in real node children (see FakeUtilityProcess). */
      runWithNode: false,
      fork: vi.fn((modulePath: string, args: string[] = [], options: FakeForkOptions = {}) => {
        const child = new FakeUtilityProcess(modulePath, args, options);
        if (fake.utilityProcess.runWithNode) child.startNode();
        return child;
      }),
    },
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
  protocol: fake.protocol,
  utilityProcess: fake.utilityProcess,
  BrowserWindow: FakeBrowserWindow,
  Notification: FakeNotification,
};

export function resetFakeElectron(): void {
  vi.clearAllMocks();
  fake.app.reset();
  fake.ipcMain.handlers.clear();
  fake.nativeTheme.shouldUseDarkColors = false;
  fake.screen.workAreas = [{ x: 0, y: 0, width: 1920, height: 1040 }];
  FakeBrowserWindow.instances = [];
  FakeBrowserWindow.loadFailure = null;
  fake.protocol.reset();
  fake.utilityProcess.runWithNode = false;
  FakeUtilityProcess.instances = [];
  FakeNotification.instances = [];
  FakeNotification.supported = true;
}
