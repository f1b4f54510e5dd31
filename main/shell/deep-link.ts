/**
 * Deep links: a `fleet-desk://…` link opened anywhere on the machine (a browser, a chat, a terminal's
 * `xdg-open`) brings the app forward on that page. The OS hands the link over in one of three ways:
 * - macOS: app's `open-url`, also at launch, before `ready`;
 * - Windows, Linux: it starts the app with the link as an argument. The first instance finds it in its
 *   own process.argv; a running app gets the second instance's argv in `second-instance`.
 * Each ends as `app.navigate` (common/events.ts) to the window's page, or, refused, as a log line.
 * What a link may say is deep-link-url.ts's to decide.
 */
import { resolve } from 'node:path';
import { app, type BrowserWindow } from 'electron';
import { IPC_EVENT } from '../../common/bridge';
import type { Events } from '../../common/events';
import { DEEP_LINK_SCHEME, deepLinkInArgv, describeLink, routeOfDeepLink } from './deep-link-url';

type Log = (message: string) => void;

/** What decides how the scheme is registered; main passes the process's own (see `registerDeepLinkScheme`). */
export interface ProtocolClientOptions {
  readonly isPackaged: boolean;
  readonly platform: NodeJS.Platform;
  /** `process.defaultApp`: the app was started as `electron <folder>`, a development run. */
  readonly defaultApp: boolean;
  readonly execPath: string;
  readonly argv: readonly string[];
}

/**
 * Makes this app the handler of `fleet-desk:` links; false when it did not (a development run
 * outside Windows, which does not try, or the OS refused, which is logged). Done on every
 * start of a packaged app, so the registration follows the executable when an update moves it.
 * Windows needs it outright: the NSIS installer registers no scheme, this writes it under
 * HKCU\Software\Classes. macOS and Linux already know the scheme from the package (Info.plist,
 * the desktop entry's `x-scheme-handler/fleet-desk`, both from electron-builder.config.ts `protocols`);
 * there it makes this copy the default. A development run registers on Windows only, as Electron's
 * own executable with the app's folder for argument (else links would start a bare Electron); on
 * macOS and Linux registration only works for a packaged app.
 */
export function registerDeepLinkScheme(options: ProtocolClientOptions, log: Log): boolean {
  let registered: boolean;
  if (options.isPackaged) {
    registered = app.setAsDefaultProtocolClient(DEEP_LINK_SCHEME);
  } else if (options.platform === 'win32' && options.defaultApp && options.argv[1] !== undefined) {
    registered = app.setAsDefaultProtocolClient(DEEP_LINK_SCHEME, options.execPath, [resolve(options.argv[1])]);
  } else {
    return false;
  }
  if (!registered) log(`deep link: could not register the ${DEEP_LINK_SCHEME}: scheme; links will not open the app`);
  return registered;
}

/**
 * Tells the window's page to open `route`. A page still loading has no listener yet, so it is told
 * once it has loaded (as the training notification's click does in lifecycle.ts).
 */
export function sendRoute(window: BrowserWindow, route: string): void {
  const payload: Events['app.navigate'] = { route };
  const send = (): void => {
    if (!window.isDestroyed() && !window.webContents.isDestroyed()) window.webContents.send(IPC_EVENT, 'app.navigate', payload);
  };
  if (window.webContents.isLoading()) window.webContents.once('did-finish-load', send);
  else send();
}

export interface DeepLinksOptions {
  /** The first instance's own command line: the link the OS started the app for (Windows, Linux). */
  readonly argv: readonly string[];
  readonly log: Log;
  /** Brings the app's window forward, opening one if none is left. Called only once `started` was. */
  readonly focusWindow: () => BrowserWindow;
}

/**
 * The app's deep links: what arrived before there was a window to show it in waits for the first
 * one; later links bring the window forward and open at once. Only the latest waiting link is kept:
 * the page shows one route at a time, so an earlier one would only flash by.
 */
export class DeepLinks {
  readonly #log: Log;
  readonly #focusWindow: () => BrowserWindow;
  #pending: string | null = null;
  #started = false;

  constructor(options: DeepLinksOptions) {
    this.#log = options.log;
    this.#focusWindow = options.focusWindow;
    const link = deepLinkInArgv(options.argv);
    if (link !== undefined) this.#pending = this.#accept(link, 'the command line');
  }

  /** A link the OS opened with the app (macOS `open-url`), before or after `ready`. */
  openUrl(url: string): void {
    const route = this.#accept(url, 'open-url');
    if (route === null) return;
    if (!this.#started) this.#pending = route;
    else sendRoute(this.#focusWindow(), route);
  }

  /**
   * A second instance started (Windows, Linux: also how a link reaches a running app). Whatever its
   * command line says, the user asked for the app, so the window comes forward; a link on it opens.
   */
  secondInstance(argv: readonly string[]): void {
    const window = this.#focusWindow();
    const link = deepLinkInArgv(argv);
    if (link === undefined) return;
    const route = this.#accept(link, 'a second instance');
    if (route !== null) sendRoute(window, route);
  }

  /**
   * The first window is open: it gets the link that started the app, or came before it. Not focused:
   * it shows itself once painted (window.ts), and showing it earlier would flash a blank window.
   */
  started(window: BrowserWindow): void {
    this.#started = true;
    const route = this.#pending;
    this.#pending = null;
    if (route !== null) sendRoute(window, route);
  }

  #accept(url: string, source: string): string | null {
    const route = routeOfDeepLink(url);
    if (route === null) this.#log(`deep link: refused ${describeLink(url)} from ${source}: not of the form fleet-desk://<route>`);
    return route;
  }
}
