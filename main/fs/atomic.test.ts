import type * as NodeFs from 'node:fs';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { writeFileAtomic } from './atomic';

// Durability cannot be observed without pulling the plug, so the order of the file system calls is
// recorded instead: node:fs passes every call through to the real one, noting open/fsync/rename.
const trace = vi.hoisted(() => ({ calls: [] as string[], paths: new Map<number, string>() }));
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof NodeFs>();
  const openSync = (path: string, flags: string, mode?: number): number => {
    const fd = fs.openSync(path, flags, mode);
    trace.paths.set(fd, path);
    return fd;
  };
  const fsyncSync = (fd: number): void => {
    trace.calls.push(`fsync ${trace.paths.get(fd) ?? '?'}`);
    fs.fsyncSync(fd);
  };
  const renameSync = (from: string, to: string): void => {
    trace.calls.push(`rename ${from} -> ${to}`);
    fs.renameSync(from, to);
  };
  return { ...fs, openSync, fsyncSync, renameSync, default: { ...fs, openSync, fsyncSync, renameSync } };
});

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fleet-desk-atomic-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('writeFileAtomic', () => {
  it('replaces the content whole, leaving nothing beside the file', () => {
    const file = join(dir, 'profiles.json');
    writeFileAtomic(file, 'x'.repeat(10_000));
    writeFileAtomic(file, 'short');
    expect(readFileSync(file, 'utf8')).toBe('short');
    expect(readdirSync(dir)).toEqual(['profiles.json']);
  });

  it('fsyncs the temp file before renaming it over the target, then the folder', () => {
    const file = join(dir, 'profiles.json');
    trace.calls.length = 0;
    writeFileAtomic(file, '{"profiles":[]}');
    const temp = `${file}.${process.pid}.tmp`;
    expect(trace.calls).toEqual([`fsync ${temp}`, `rename ${temp} -> ${file}`, `fsync ${dir}`]);
  });

  it('creates the file with mode 0600, and a replaced file gets it too', () => {
    const file = join(dir, 'profiles.json');
    writeFileSync(file, 'old');
    chmodSync(file, 0o644);
    writeFileAtomic(file, 'new');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('creates missing parent folders, private to the user', () => {
    const file = join(dir, 'a', 'b', 'state.json');
    writeFileAtomic(file, '{}');
    expect(readFileSync(file, 'utf8')).toBe('{}');
    expect(statSync(join(dir, 'a')).mode & 0o777).toBe(0o700);
  });

  it('removes its temp file when the write fails, and leaves the target as it was', () => {
    // A folder where the file should be: the rename over it fails after the temp file is written.
    const target = join(dir, 'profiles.json');
    mkdirSync(target);
    writeFileSync(join(target, 'inside'), 'kept');
    expect(() => writeFileAtomic(target, 'new')).toThrow();
    expect(readdirSync(dir)).toEqual(['profiles.json']);
    expect(readFileSync(join(target, 'inside'), 'utf8')).toBe('kept');
  });

  it('is not stopped by a temp file a crashed run left behind', () => {
    const file = join(dir, 'profiles.json');
    const stale = `${file}.${process.pid}.tmp`;
    writeFileSync(stale, 'half of an old wri');
    chmodSync(stale, 0o644);
    writeFileAtomic(file, 'whole');
    expect(readFileSync(file, 'utf8')).toBe('whole');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['profiles.json']);
  });
});
