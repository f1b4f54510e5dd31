/**
 * Electron entry (out/main/index.js). Only paths and the real Backend are decided here; the
 * lifecycle lives in main/shell/lifecycle.ts, where it is tested against a mocked Electron.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Backend, LAUNCH_FIRST_VIEW_GRACE_MS } from './backend/backend';
import { runShell } from './shell/lifecycle';

// The bundle puts this file at out/main/index.js; its neighbours are fixed by electron.vite.config.ts.
// Resolved here, in the entry chunk, because code in a shared chunk would see out/main/chunks/.
const here = import.meta.dirname;
const icon = join(here, '..', '..', 'resources', 'icon.png');

runShell({
  openBackend: (options) => Backend.open({ ...options, cacheWorker: { entry: join(here, 'cache-worker.js'), warm: true }, firstViewGraceMs: LAUNCH_FIRST_VIEW_GRACE_MS }),
  paths: {
    preload: join(here, '..', 'preload', 'index.cjs'),
    rendererDir: join(here, '..', 'renderer'),
    serviceEntry: join(here, 'service.js'),
    // BrowserWindow cannot use an SVG: resources/icon.png (packed by electron-builder.config.ts).
    icon: existsSync(icon) ? icon : undefined,
  },
  devServerUrl: process.env.ELECTRON_RENDERER_URL,
  userDataDir: process.env.FLEET_DESK_USER_DATA || undefined,
});
