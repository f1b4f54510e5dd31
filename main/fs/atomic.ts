import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Write a file so that a crash or a power loss leaves either the old or the new content, never half
 * of one (a torn profiles.json would make the profile store start fresh and lose remote profiles):
 * write a sibling temp file and fsync it, so its bytes are on disk before the rename makes them the
 * file; rename over the target (atomic on one filesystem); fsync the folder so the rename itself
 * survives. A failure removes the temp file and leaves the target as it was.
 */
export function writeFileAtomic(path: string, data: string, mode = 0o600): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.tmp`;
  let fd: number | null = null;
  try {
    // A temp file left by a crashed run with our pid would keep its old mode: start from none.
    rmSync(temp, { force: true });
    fd = openSync(temp, 'wx', mode);
    writeFileSync(fd, data);
    fsyncSync(fd);
    closeSync(fd);
    fd = null;
    renameSync(temp, path);
  } catch (e) {
    if (fd !== null) {
      try {
        closeSync(fd);
      } catch {
        // already failing; the original error is the one to report
      }
    }
    rmSync(temp, { force: true });
    throw e;
  }
  syncDirectory(dir);
}

/**
 * Best effort: the rename is done and readers see the new file; this only makes it durable across a
 * power loss. Some platforms (Windows) and filesystems cannot open or fsync a folder.
 */
function syncDirectory(dir: string): void {
  let fd: number | null = null;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // not supported here; the write itself succeeded
  } finally {
    if (fd !== null) closeSync(fd);
  }
}
