/**
 * One backend per data folder. Two backends on one user-data dir (the desktop app and browser mode,
 * or two browser-mode runs) would each fork a local service on the same database, rewrite
 * profiles.json over each other and sync into the same caches. The lock is a file,
 * `<dir>/backend.lock`, created exclusively (O_EXCL) and holding the owner's pid; a lock whose pid is
 * no longer alive is left over from a crash and is taken over.
 *
 * Limits, accepted for a desktop app: a pid can be reused, so a stale lock whose pid now belongs to
 * an unrelated live process blocks until that process ends (the message names the pid); and two
 * instances taking over the same stale lock at the very same moment could both succeed.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export const LOCK_FILE = 'backend.lock';

export interface DataDirLock {
  /** Removes the lock if it is still ours. Safe to call twice; also runs when the process exits. */
  release(): void;
}

/** Another live process holds the data folder. */
export class DataDirLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(`Another Fleet Desk is using ${dir} (pid ${pid}). Close it, or pass another --user-data-dir.`);
    this.name = 'DataDirLockedError';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the pid exists but belongs to another user. It is alive; whether it is a Fleet Desk we
    // cannot tell, and sharing the folder is the thing this lock exists to prevent.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid in a lock file; null when the file is gone or holds no pid. */
function readOwner(path: string): number | null | 'gone' {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw e;
  }
  const pid = Number(text.trim());
  return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Takes the data folder for this process, or throws DataDirLockedError naming the live owner.
 * A lock left by a dead process (or by an earlier process that had our pid) is taken over.
 */
export function acquireLock(dir: string): DataDirLock {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, LOCK_FILE);

  for (let attempt = 0; ; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, 'wx', 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 20) throw e;
      let owner = readOwner(path);
      // Between another instance's create and its write the file is empty: give it a moment
      // before calling an empty lock stale.
      for (let wait = 0; owner === null && wait < 5; wait++) {
        sleepSync(20);
        owner = readOwner(path);
      }
      if (owner === 'gone') continue; // released meanwhile: try again
      if (owner !== null && owner !== process.pid && isAlive(owner)) throw new DataDirLockedError(dir, owner);
      // Stale: its owner is dead, it names us (a pid from before a reboot), or it holds no pid.
      rmSync(path, { force: true });
      continue;
    }
    try {
      writeSync(fd, `${process.pid}\n`);
    } finally {
      closeSync(fd);
    }
    break;
  }

  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    process.removeListener('exit', release);
    // Only our own: after a takeover by someone else (we were thought dead), the lock is theirs.
    if (readOwner(path) === process.pid) rmSync(path, { force: true });
  };
  // A backend that is never closed (a crash in main, process.exit) must not leave its folder locked
  // for the next launch. Only sync work is possible in 'exit'; a SIGKILL leaves a stale lock, which
  // the next acquireLock takes over.
  process.on('exit', release);
  return { release };
}
