import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LOCAL_PROFILE_ID, ProfileStore } from './store';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-profiles-'));
  dirs.push(dir);
  return dir;
}
const local = { id: LOCAL_PROFILE_ID, name: 'Local demo', kind: 'local' as const, address: '', tls: false, apiKeyId: '' };
const remote = { id: 'prod', name: 'Production', kind: 'remote' as const, address: 'fleet.example.com:443', tls: true, apiKeyId: 'key-1' };
/** The file as written: its inode changes with every (atomic, renamed) write. */
const written = (dir: string) => ({ ino: statSync(join(dir, 'profiles.json')).ino, text: readFileSync(join(dir, 'profiles.json'), 'utf8') });

describe('the profile store', () => {
  it('activating the profile the file names as active writes nothing (each launch does it)', () => {
    const dir = dataDir();
    const first = ProfileStore.open(dir, () => {});
    first.add(local);
    first.add(remote);
    first.setActive('prod');
    const before = written(dir);
    const again = ProfileStore.open(dir, () => {});
    again.setActive('prod');
    expect(written(dir)).toEqual(before);
    // Another one is written, and so is switching back.
    again.setActive(LOCAL_PROFILE_ID);
    expect(JSON.parse(written(dir).text).activeId).toBe(LOCAL_PROFILE_ID);
    again.setActive('prod');
    expect(JSON.parse(written(dir).text).activeId).toBe('prod');
  });

  it('writes the active profile when the file names another or none (an id it no longer has)', () => {
    const dir = dataDir();
    writeFileSync(join(dir, 'profiles.json'), JSON.stringify({ version: 1, activeId: 'gone', profiles: [local] }));
    const store = ProfileStore.open(dir, () => {});
    expect(store.activeId).toBe(LOCAL_PROFILE_ID);
    store.setActive(LOCAL_PROFILE_ID);
    expect(JSON.parse(written(dir).text).activeId).toBe(LOCAL_PROFILE_ID);
  });
});
