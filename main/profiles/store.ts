/**
 * Connection profiles, persisted in `<userData>/profiles.json`. The file holds no secret: API keys
 * are in the keychain under the profile id. A corrupt file is set aside (not deleted) and the app
 * starts as on first launch, so a bad write never locks the user out.
 */
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { writeFileAtomic } from '../fs/atomic';

/** The id of the profile of the embedded local service; there is at most one. */
export const LOCAL_PROFILE_ID = 'local';

const storedProfile = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  kind: z.enum(['local', 'remote']),
  /** Remote profiles only; the local service's address is whatever it listens on this run. */
  address: z.string(),
  tls: z.boolean(),
  apiKeyId: z.string(),
});

const storedFile = z.object({
  version: z.literal(1),
  activeId: z.string().nullable(),
  profiles: z.array(storedProfile),
});

export type StoredProfile = z.infer<typeof storedProfile>;

export class ProfileStore {
  readonly #path: string;
  #profiles: StoredProfile[] = [];
  #activeId: string | null = null;
  /** The active profile as the file says it (undefined: no file read or written yet). */
  #storedActiveId: string | null | undefined = undefined;

  private constructor(path: string) {
    this.#path = path;
  }

  static open(userDataDir: string, log: (m: string) => void): ProfileStore {
    const store = new ProfileStore(join(userDataDir, 'profiles.json'));
    if (existsSync(store.#path)) {
      try {
        const parsed = storedFile.parse(JSON.parse(readFileSync(store.#path, 'utf8')));
        store.#profiles = parsed.profiles;
        store.#activeId = parsed.profiles.some((p) => p.id === parsed.activeId) ? parsed.activeId : (parsed.profiles[0]?.id ?? null);
        store.#storedActiveId = parsed.activeId;
      } catch (e) {
        const aside = `${store.#path}.corrupt-${Date.now()}`;
        renameSync(store.#path, aside);
        log(`profiles: ${store.#path} could not be read (${e instanceof Error ? e.message : String(e)}); moved it to ${aside} and starting fresh`);
      }
    }
    return store;
  }

  get profiles(): readonly StoredProfile[] {
    return this.#profiles;
  }

  get activeId(): string | null {
    return this.#activeId;
  }

  get(id: string): StoredProfile | undefined {
    return this.#profiles.find((p) => p.id === id);
  }

  /** Adds a profile (without an id it gets a fresh one), or updates the one with its id in place; saves. */
  add(profile: Omit<StoredProfile, 'id'> & { id?: string }): StoredProfile {
    const stored: StoredProfile = { ...profile, id: profile.id ?? randomUUID() };
    const at = this.#profiles.findIndex((p) => p.id === stored.id);
    this.#profiles = at === -1 ? [...this.#profiles, stored] : this.#profiles.with(at, stored);
    this.#save();
    return stored;
  }

  /** Removes a profile; if it was active, the local profile (or else the first) becomes active. */
  remove(id: string): void {
    this.#profiles = this.#profiles.filter((p) => p.id !== id);
    if (this.#activeId === id) this.#activeId = (this.get(LOCAL_PROFILE_ID) ?? this.#profiles[0])?.id ?? null;
    this.#save();
  }

  /** Make `id` the active profile; saves unless the file says so already (every launch activates the last one: no write, no fsync). */
  setActive(id: string): void {
    if (!this.get(id)) throw new Error(`no profile ${id}`);
    this.#activeId = id;
    if (this.#storedActiveId !== id) this.#save();
  }

  #save(): void {
    const file: z.infer<typeof storedFile> = { version: 1, activeId: this.#activeId, profiles: this.#profiles };
    writeFileAtomic(this.#path, `${JSON.stringify(file, null, 2)}\n`);
    this.#storedActiveId = this.#activeId;
  }
}
