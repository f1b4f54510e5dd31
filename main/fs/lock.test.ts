/**
 * The data-folder lock across real processes: a second process is refused while the first holds the
 * folder, a lock whose owner died is taken over, and exiting releases it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireLock, DataDirLockedError, LOCK_FILE } from './lock';

const repoRoot = join(import.meta.dirname, '..', '..');
const lockModule = join(repoRoot, 'main', 'fs', 'lock.ts');

let dir: string;
let lockPath: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fleet-desk-lock-'));
  lockPath = join(dir, LOCK_FILE);
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `body` in a new Node process with acquireLock imported; returns what it printed. */
function inChild(body: string): { status: number | null; stdout: string; stderr: string } {
  const script = `import { acquireLock } from ${JSON.stringify(lockModule)};\n${body}`;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: repoRoot, encoding: 'utf8' });
  return { status: child.status, stdout: child.stdout.trim(), stderr: child.stderr };
}

const tryAcquire = (folder: string) =>
  `try { acquireLock(${JSON.stringify(folder)}); console.log('acquired'); } catch (e) { console.log('refused: ' + e.message); }`;

/** The pid of a process that has exited (and been reaped): what a crashed owner leaves behind. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  const pid = Number(child.stdout);
  expect(() => process.kill(pid, 0)).toThrow();
  return pid;
}

describe('acquireLock', () => {
  it('writes our pid to the lock file and removes it on release (twice is fine)', () => {
    const lock = acquireLock(dir);
    expect(readFileSync(lockPath, 'utf8').trim()).toBe(String(process.pid));
    lock.release();
    expect(existsSync(lockPath)).toBe(false);
    lock.release();
    acquireLock(dir).release();
  });

  it('creates the folder it locks', () => {
    const nested = join(dir, 'user-data');
    acquireLock(nested).release();
    expect(existsSync(nested)).toBe(true);
  });

  it('refuses another process while we hold the folder, naming us and what to do; admits it after release', () => {
    const lock = acquireLock(dir);
    const refused = inChild(tryAcquire(dir));
    expect(refused.status, refused.stderr).toBe(0);
    expect(refused.stdout).toBe(`refused: Another Fleet Desk is using ${dir} (pid ${process.pid}). Close it, or pass another --user-data-dir.`);
    expect(readFileSync(lockPath, 'utf8').trim()).toBe(String(process.pid));

    lock.release();
    const admitted = inChild(tryAcquire(dir));
    expect(admitted.stdout).toBe('acquired');
    // It exited without calling release: the exit hook removed its lock.
    expect(existsSync(lockPath)).toBe(false);
  });

  it('is refused here while a live process holds it, and takes over once that process is killed', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', `import { acquireLock } from ${JSON.stringify(lockModule)}; acquireLock(${JSON.stringify(dir)}); console.log('held'); setInterval(() => {}, 1000);`],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      expect(line).toBe('held');
      let error: unknown;
      try {
        acquireLock(dir);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(DataDirLockedError);
      expect(error).toMatchObject({ dir, pid: child.pid, message: expect.stringContaining(`(pid ${child.pid})`) as unknown });
    } finally {
      // SIGKILL: no exit hook runs, so the lock stays behind, stale.
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    }
    expect(readFileSync(lockPath, 'utf8').trim()).toBe(String(child.pid));
    const lock = acquireLock(dir);
    expect(readFileSync(lockPath, 'utf8').trim()).toBe(String(process.pid));
    lock.release();
  });

  it('takes over a lock whose pid is dead', () => {
    writeFileSync(lockPath, `${deadPid()}\n`);
    const lock = acquireLock(dir);
    expect(readFileSync(lockPath, 'utf8').trim()).toBe(String(process.pid));
    lock.release();
  });

  it('takes over a lock that holds no pid', () => {
    writeFileSync(lockPath, 'not a pid');
    acquireLock(dir).release();
    expect(existsSync(lockPath)).toBe(false);
  });

  it('release leaves a lock that another process took over', () => {
    const lock = acquireLock(dir);
    // As if we had been thought dead and another live process (our parent here) had taken over.
    writeFileSync(lockPath, `${process.ppid}\n`);
    lock.release();
    expect(readFileSync(lockPath, 'utf8').trim()).toBe(String(process.ppid));
  });
});
