/**
 * The app's lifecycle around the backend: single instance, windows, the bridge, and a clean stop of
 * the embedded service on quit. main/index.ts passes in the real Backend and the built paths; tests
 * pass a fake, which is why the backend is a parameter rather than an import.
 */
import { join } from 'node:path';
import { app, dialog, Notification, session, type BrowserWindow } from 'electron';
import { IPC_EVENT } from '../../common/bridge';
import type { EventBus } from '../backend/events';
import { createRouter, type BridgeHost, type Handlers } from '../backend/router';
import type { SpawnService } from '../local-service/supervisor';
import { handleAppScheme, registerAppScheme } from './app-scheme';
import { appLocation } from './app-url';
import { CONTENT_SECURITY_POLICY, devContentSecurityPolicy } from '../security/csp';
import { DeepLinks, registerDeepLinkScheme } from './deep-link';
import { createSenderCheck, registerBridgeIpc } from './ipc';
import { installApplicationMenu } from './menu';
import { installAppSecurity, installSessionSecurity } from './security';
import { spawnServiceInUtilityProcess } from './utility-service';
import { createMainWindow } from './window';
import { loadWindowState, trackWindowState, WINDOW_STATE_FILE } from './window-state';

/** The part of main/backend/backend.ts's `Backend` the shell uses. */
export interface ShellBackend {
  readonly handlers: Handlers;
  readonly events: Pick<EventBus, 'subscribe'>;
  start(): Promise<void>;
  close(): Promise<void>;
  /** index.html with the fleet tree drawn into its frame (Backend.indexPage). */
  indexPage(indexHtml: string): string;
}

export interface ShellBackendOptions {
  readonly userDataDir: string;
  readonly serviceEntry: string;
  /** How the local service is started: in an Electron utility process (utility-service.ts). */
  readonly spawnService: SpawnService;
  readonly log?: (message: string) => void;
  /** Asks where to save a file (log exports): the save dialog, over the app's window. */
  readonly chooseSavePath: (suggestedName: string) => Promise<string | null>;
  /** Asks which files to open (module uploads): the open dialog, over the app's window; [] when cancelled. */
  readonly chooseOpenPaths: (options: { title: string; filters: { name: string; extensions: string[] }[] }) => Promise<string[]>;
  /** A desktop notification for a training job that ended; a click brings the window forward on the job. False when the OS has none. */
  readonly notify: (notice: { readonly title: string; readonly body: string; readonly orgId: string; readonly jobId: string }) => boolean;
  /** The count of running training jobs on the app's icon (dock/launcher badge where the desktop has one). */
  readonly setBadge: (running: number) => void;
}

export interface ShellPaths {
  /** out/preload/index.cjs */
  readonly preload: string;
  /** out/renderer, served as app://fleet-desk/ (app-scheme.ts). */
  readonly rendererDir: string;
  /** out/main/service.js, run by the backend in a utility process. */
  readonly serviceEntry: string;
  readonly icon?: string | undefined;
}

export interface ShellOptions {
  readonly openBackend: (options: ShellBackendOptions) => Promise<ShellBackend>;
  readonly paths: ShellPaths;
  /** `ELECTRON_RENDERER_URL`; ignored in a packaged app, where an inherited variable must not redirect the UI. */
  readonly devServerUrl?: string | undefined;
  readonly log?: (message: string) => void;
  /** How long quitting waits for the backend to stop the embedded service before giving up on it. */
  readonly closeTimeoutMs?: number;
  /**
   * Another user-data folder (profiles, caches, local service): `FLEET_DESK_USER_DATA`. Lets E2E runs
   * and a second, separate setup each have their own data; the single-instance lock follows it.
   */
  readonly userDataDir?: string | undefined;
}

/**
 * How long the window's page waits for the backend (its opened cache) to draw the fleet tree into
 * the page's frame. The backend opens beside the app's `ready`, usually first; a slow disk gets the
 * plain frame rather than a window that waits.
 */
export const FRAME_WAIT_MS = 250;

function timeout(ms: number, what: string): Promise<never> {
  return new Promise((_resolve, reject) => {
    setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms).unref();
  });
}

/** Runs the app. Returns false when another instance already runs (this one then quits). */
export function runShell(options: ShellOptions): boolean {
  const log = options.log ?? ((message: string) => console.error(`[fleet-desk] ${message}`));

  // Before the lock: Electron keys the single-instance lock on the user-data folder.
  if (options.userDataDir) app.setPath('userData', options.userDataDir);

  // The embedded service and the profile store belong to one process: a second instance only
  // wakes the first one up (see 'second-instance') and leaves.
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return false;
  }
  // Belt to the per-window `sandbox: true`: no renderer this app ever creates runs unsandboxed.
  app.enableSandbox();
  // Before `ready`, or Electron ignores it.
  registerAppScheme();

  const location = appLocation({ devServerUrl: app.isPackaged ? undefined : options.devServerUrl });
  installAppSecurity(location, log);

  const windows = new Set<BrowserWindow>();
  const isAppWebContents = (id: number): boolean =>
    [...windows].some((w) => !w.isDestroyed() && w.webContents.id === id);

  /** Bring the app's window forward (opening one if none is left). */
  const focusWindow = (): BrowserWindow => {
    const [window] = [...windows].filter((w) => !w.isDestroyed());
    if (!window) return openWindow();
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
    return window;
  };
  // Before `ready`: macOS sends the link that launched the app as `open-url` that early.
  const deepLinks = new DeepLinks({ argv: process.argv, log, focusWindow });
  app.on('open-url', (event, url) => {
    // Electron's older docs ask for it to mark the URL handled; harmless where it is not needed.
    event.preventDefault();
    deepLinks.openUrl(url);
  });
  registerDeepLinkScheme(
    { isPackaged: app.isPackaged, platform: process.platform, defaultApp: process.defaultApp === true, execPath: process.execPath, argv: process.argv },
    log,
  );
  // A notification is kept referenced until it is closed: one collected early never reports its click.
  const notifications = new Set<Notification>();

  const backendReady = app.whenReady().then(() =>
    options.openBackend({
      userDataDir: app.getPath('userData'),
      serviceEntry: options.paths.serviceEntry,
      // A packaged app has the RunAsNode fuse off, so node's child_process.fork of the app binary cannot run the service.
      spawnService: spawnServiceInUtilityProcess,
      log,
      chooseSavePath: async (suggestedName) => {
        const parent = [...windows].find((w) => !w.isDestroyed());
        const options = { title: 'Export logs', defaultPath: join(app.getPath('downloads'), suggestedName), properties: ['createDirectory' as const, 'showOverwriteConfirmation' as const] };
        const answer = parent ? await dialog.showSaveDialog(parent, options) : await dialog.showSaveDialog(options);
        return answer.canceled || !answer.filePath ? null : answer.filePath;
      },
      chooseOpenPaths: async ({ title, filters }) => {
        const parent = [...windows].find((w) => !w.isDestroyed());
        const options = { title, filters, properties: ['openFile' as const, 'multiSelections' as const] };
        const answer = parent ? await dialog.showOpenDialog(parent, options) : await dialog.showOpenDialog(options);
        return answer.canceled ? [] : answer.filePaths;
      },
      notify: ({ title, body, orgId, jobId }) => {
        if (!Notification.isSupported()) return false;
        const notification = new Notification({ title, body });
        notifications.add(notification);
        notification.on('click', () => {
          notifications.delete(notification);
          const window = focusWindow();
          // The renderer opens the job (common/events.ts `training.open`). A window opened for the click
          // (none was left, macOS) gets it once its page has loaded and listens.
          const send = () => {
            if (!window.isDestroyed() && !window.webContents.isDestroyed()) window.webContents.send(IPC_EVENT, 'training.open', { orgId, jobId });
          };
          if (window.webContents.isLoading()) window.webContents.once('did-finish-load', send);
          else send();
        });
        notification.on('close', () => notifications.delete(notification));
        notification.show();
        return true;
      },
      setBadge: (running) => {
        // Linux launchers (Unity) and macOS show it; elsewhere Electron answers false and nothing changes.
        app.setBadgeCount(running);
      },
    }),
  );
  const routerReady = backendReady.then((backend) =>
    createRouter(backend.handlers, { isTrustedSender: createSenderCheck(location, isAppWebContents), log }),
  );
  routerReady.catch(() => undefined); // the failure is reported once, where backendReady is handled below
  // Registered at once, so a renderer that loads before the backend has opened waits instead of
  // hitting "no handler registered"; if opening failed, the IPC layer answers with an 'internal' envelope.
  const host: BridgeHost = {
    dispatch: async (sender, channel, payload) => (await routerReady).dispatch(sender, channel, payload),
    dispatchWire: async (sender, channel, payload) => (await routerReady).dispatchWire(sender, channel, payload),
  };
  registerBridgeIpc(host, log);

  const openWindow = (): BrowserWindow => {
    const stateFile = join(app.getPath('userData'), WINDOW_STATE_FILE);
    const window = createMainWindow({
      location,
      preload: options.paths.preload,
      icon: options.paths.icon,
      state: loadWindowState(stateFile, log),
      log,
    });
    trackWindowState(window, stateFile, { log });
    windows.add(window);
    window.on('closed', () => windows.delete(window));
    return window;
  };

  app.on('second-instance', (_event, argv) => {
    if (!app.isReady()) return;
    // Brings the window forward, and opens the page of a fleet-desk:// link the OS started it for.
    deepLinks.secondInstance(argv);
  });

  app.on('window-all-closed', () => {
    // macOS apps stay running with no window; the backend (and local service) keeps serving until Quit.
    if (process.platform !== 'darwin') app.quit();
  });

  app.on('activate', () => {
    if (app.isReady() && windows.size === 0) openWindow();
  });

  let quitting: 'no' | 'closing' | 'closed' = 'no';
  const closeTimeoutMs = options.closeTimeoutMs ?? 10_000;
  app.on('before-quit', (event) => {
    if (quitting === 'closed') return;
    // Quit waits for the backend to stop the embedded service, so no orphan keeps its port and database.
    event.preventDefault();
    if (quitting === 'closing') return;
    quitting = 'closing';
    const close = backendReady.then((backend) => backend.close());
    void Promise.race([close, timeout(closeTimeoutMs, 'Stopping the backend')])
      .catch((e: unknown) => log(`quit: ${e instanceof Error ? e.message : String(e)}`))
      .finally(() => {
        quitting = 'closed';
        app.quit();
      });
  });

  void app.whenReady().then(() => {
    const dev = location.kind === 'dev';
    // The dev server serves the page itself; a build is served from out/renderer on app://.
    if (!dev) {
      handleAppScheme(options.paths.rendererDir, CONTENT_SECURITY_POLICY, async (html) => {
        let timer: NodeJS.Timeout | undefined;
        const plain = new Promise<string>((resolve) => (timer = setTimeout(resolve, FRAME_WAIT_MS, html)));
        try {
          return await Promise.race([backendReady.then((backend) => backend.indexPage(html)), plain]);
        } finally {
          clearTimeout(timer);
        }
      });
    }
    installSessionSecurity(session.defaultSession, dev ? devContentSecurityPolicy(location.origin) : CONTENT_SECURITY_POLICY);
    installApplicationMenu();
    deepLinks.started(openWindow());
  });

  backendReady.then(
    (backend) => {
      backend.events.subscribe((event, payload) => {
        for (const window of windows) {
          if (!window.isDestroyed() && !window.webContents.isDestroyed()) window.webContents.send(IPC_EVENT, event, payload);
        }
      });
      // Not awaited before showing anything: starting the service and connecting can take seconds,
      // and the UI shows that progress from the events above.
      backend.start().catch((e: unknown) => log(`backend: start failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`));
    },
    (e: unknown) => {
      const message = e instanceof Error ? e.message : String(e);
      log(`backend: could not open: ${e instanceof Error ? (e.stack ?? message) : message}`);
      dialog.showErrorBox('Fleet Desk cannot start', `The app could not open its data in ${app.getPath('userData')}.\n\n${message}`);
      app.quit();
    },
  );
  return true;
}
