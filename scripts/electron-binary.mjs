// Where Electron's binary is, without triggering its download (requiring 'electron' would fetch it).
import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const electronDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', 'electron');

/** The installed Electron executable, or null when its binary was never downloaded. */
export function installedElectron() {
  if (process.env.ELECTRON_OVERRIDE_DIST_PATH) {
    const p = join(process.env.ELECTRON_OVERRIDE_DIST_PATH, 'electron');
    return existsSync(p) ? p : null;
  }
  const pathFile = join(electronDir, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const binary = join(electronDir, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? binary : null;
}

/**
 * The Electron executable, downloading it first when that is allowed (electron 45 fetches its binary
 * on first use, not at install). Null when it cannot be had: no network, or the download is skipped.
 */
export function ensureElectron() {
  const found = installedElectron();
  if (found || process.env.ELECTRON_SKIP_BINARY_DOWNLOAD) return found;
  const result = spawnSync(process.execPath, [join(electronDir, 'install.js')], { stdio: 'inherit', timeout: 300_000 });
  return result.status === 0 ? installedElectron() : null;
}
