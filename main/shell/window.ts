/**
 * The app window. Its webPreferences are the whole renderer security model: an isolated, sandboxed
 * page with no Node, whose only way out is the preload's bridge.
 */
import { app, BrowserWindow, dialog, nativeTheme, type WebPreferences } from 'electron';
import type { AppLocation } from './app-url';
import { MIN_SIZE, type InitialWindowState } from './window-state';

export const WINDOW_TITLE = 'Fleet Desk';

/** Painted before the renderer's first frame, so a dark desktop gets no white flash. */
export const BACKGROUND = { dark: '#1b1d21', light: '#ffffff' } as const;

export interface SecureWebPreferencesOptions {
  /**
   * Whether DevTools can be opened at all. Only in development: in a release they would be a way
   * around the bridge's checks (and the menu has no entry for them either, see menu.ts).
   */
  readonly devTools: boolean;
}

/** Every security-relevant preference spelled out, including the defaults, so none can drift with an Electron upgrade. */
export function secureWebPreferences(preload: string, options: SecureWebPreferencesOptions): WebPreferences {
  return {
    preload,
    devTools: options.devTools,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    spellcheck: false,
  };
}

export interface MainWindowOptions {
  readonly location: AppLocation;
  /** Absolute path of out/preload/index.cjs. */
  readonly preload: string;
  /** A PNG (or ICO on Windows); omitted when the app has none, and ignored on macOS, which uses the bundle's. */
  readonly icon?: string | undefined;
  readonly state: InitialWindowState;
  readonly log: (message: string) => void;
}

export function createMainWindow(options: MainWindowOptions): BrowserWindow {
  const { state } = options;
  const window = new BrowserWindow({
    ...state.bounds,
    // No saved position means "first launch or off screen": center it.
    center: state.bounds.x === undefined || state.bounds.y === undefined,
    minWidth: MIN_SIZE.width,
    minHeight: MIN_SIZE.height,
    title: WINDOW_TITLE,
    ...(options.icon ? { icon: options.icon } : {}),
    backgroundColor: nativeTheme.shouldUseDarkColors ? BACKGROUND.dark : BACKGROUND.light,
    show: false,
    webPreferences: secureWebPreferences(options.preload, { devTools: !app.isPackaged }),
  });

  followHistoryGestures(window);
  askBeforeLosingEdits(window);

  let shown = false;
  const show = (): void => {
    if (shown || window.isDestroyed()) return;
    shown = true;
    if (state.isMaximized) window.maximize();
    window.show();
  };
  window.once('ready-to-show', show);

  // The dev server's URL, or app://fleet-desk/index.html (served by app-scheme.ts), never a file:// page.
  const { location } = options;
  const loading = window.loadURL(location.url);
  loading.catch((e: unknown) => {
    options.log(`window: could not load ${location.url}: ${String(e)}`);
    // A hidden window that never paints would look like the app did not start; show what there is.
    show();
  });
  return window;
}

/**
 * The OS's own Back and Forward walk the page's history. The renderer's router keeps one history
 * entry per page it opens (hash routes through pushState) and follows popstate, so stepping through
 * the history is all it takes; nothing is asked of the page. It cannot lead out of the app: the
 * window only ever loads the app's page (security.ts refuses any other), so every entry is the app.
 * - `app-command` (Windows, Linux): a mouse's back/forward buttons and the keyboard's browser keys.
 * - `swipe` (macOS): only sent when Trackpad › "Swipe between pages" is set to "Swipe with two or
 *   three fingers" (Electron's docs), not with the default. 'left' goes back, 'right' forward (not
 *   yet tried on a Mac: should it feel reversed there, these two swap).
 */
/**
 * Closing (or reloading) the window while a page has unsaved changes: the page's beforeunload
 * refuses, which in Electron stops the close without a word; the window asks instead, and a
 * person who chooses Leave closes it (the edit is lost, as they were told).
 */
export function askBeforeLosingEdits(window: BrowserWindow): void {
  window.webContents.on('will-prevent-unload', (event) => {
    if (window.isDestroyed()) return;
    const choice = dialog.showMessageBoxSync(window, {
      type: 'question',
      buttons: ['Leave', 'Stay'],
      defaultId: 1,
      cancelId: 1,
      title: 'Unsaved changes',
      message: 'This page has unsaved changes.',
      detail: 'Leave and lose them, or stay and save them first?',
    });
    if (choice === 0) event.preventDefault();
  });
}

export function followHistoryGestures(window: BrowserWindow): void {
  const step = (direction: 'back' | 'forward'): void => {
    if (window.isDestroyed() || window.webContents.isDestroyed()) return;
    const history = window.webContents.navigationHistory;
    if (direction === 'back' && history.canGoBack()) history.goBack();
    else if (direction === 'forward' && history.canGoForward()) history.goForward();
  };
  window.on('app-command', (_event, command) => {
    if (command === 'browser-backward') step('back');
    else if (command === 'browser-forward') step('forward');
  });
  window.on('swipe', (_event, direction) => {
    if (direction === 'left') step('back');
    else if (direction === 'right') step('forward');
  });
}
