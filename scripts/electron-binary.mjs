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
 * on first use, not at install), or null and why it cannot be had: no network, or the download is
 * skipped. The installer's own error (a bare `TypeError: fetch failed` and its stack) is kept from
 * the terminal: the caller says what happens instead, with the reason in its words.
 *
 * @returns {{ binary: string | null; reason: string | null }}
 */
export function ensureElectron() {
  const found = installedElectron();
  if (found) return { binary: found, reason: null };
  if (process.env.ELECTRON_SKIP_BINARY_DOWNLOAD) return { binary: null, reason: 'its download is turned off (ELECTRON_SKIP_BINARY_DOWNLOAD)' };
  console.error("Downloading Electron's binary (the first start only)…");
  const result = spawnSync(process.execPath, [join(electronDir, 'install.js')], { stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8', timeout: 300_000 });
  const binary = result.status === 0 ? installedElectron() : null;
  if (binary) return { binary, reason: null };
  // The installer's first line says it (`TypeError: fetch failed`, `Error: checksum mismatch`, …); the stack is noise.
  const said = (result.stderr ?? '').split('\n').find((line) => line.trim() !== '')?.trim().replace(/^[A-Za-z]*Error: /, '');
  return { binary: null, reason: `it could not be downloaded (${result.error ? result.error.message : (said ?? `exit code ${result.status}`)})` };
}
