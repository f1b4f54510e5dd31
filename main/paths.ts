import { homedir } from 'node:os';
import { join } from 'node:path';

/** The app's name as Electron derives userData from it (package.json productName). */
export const APP_NAME = 'Fleet Desk';

/**
 * Where Electron's `app.getPath('userData')` points on this OS, so browser mode and the desktop app
 * share profiles, caches and the local service's data by default.
 */
export function defaultUserDataDir(): string {
  switch (process.platform) {
    case 'darwin':
      return join(homedir(), 'Library', 'Application Support', APP_NAME);
    case 'win32':
      return join(process.env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), APP_NAME);
    default:
      return join(process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), APP_NAME);
  }
}
