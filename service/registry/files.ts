/**
 * The bytes of registry files in the data dir: `registry/files/<item>/<version>/<os>-<arch>` once
 * complete, `registry/uploads/<item>_<version>_<os>-<arch>.part` while an upload is under way or
 * waits to be resumed. An upload writes its chunks to the `.part` file as they arrive (memory stays
 * flat whatever the size); the file's length is what the service holds of it (bytes arrive in
 * order, so any length is a prefix of the file). Completing hashes the `.part` where it is, links it
 * into place (never over a file that is there: a committed file is never replaced) and only then
 * writes its row: a file row always has its bytes.
 */
import { createHash } from 'node:crypto';
import { createReadStream, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { link, mkdir, open, readdir, rm, stat, truncate, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

/** One file's upload, as its rows name it. */
export interface Upload {
  readonly item_id: string;
  readonly version: string;
  readonly platform: string;
}

export class RegistryFiles {
  readonly #files: string;
  readonly #uploads: string;

  constructor(dataDir: string) {
    this.#files = join(dataDir, 'registry', 'files');
    this.#uploads = join(dataDir, 'registry', 'uploads');
  }

  /** This process's claim on the data dir's uploads, as written to the owner file. */
  readonly #claim = `${process.pid} ${randomBytes(8).toString('hex')}`;

  /**
   * Claim the data dir's uploads for this service, or say who holds them. One stream per file is
   * kept in one process's memory, so two instances on one data dir (which the database allows)
   * must not both write its uploads: the first to start takes them, in `registry/uploads.owner`
   * (created exclusively); a holder that is no longer running is taken over. Answers null when this
   * service holds them, else a sentence for the caller.
   */
  claimUploads(): string | null {
    const owner = join(this.#uploads, '..', 'uploads.owner');
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        mkdirSync(join(this.#uploads, '..'), { recursive: true, mode: 0o700 });
        writeFileSync(owner, this.#claim, { flag: 'wx', mode: 0o600 });
        return null;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      let holder: string;
      try {
        holder = readFileSync(owner, 'utf8').trim();
      } catch {
        continue; // Let go of meanwhile: claim it again.
      }
      if (holder === this.#claim) return null;
      const pid = Number(holder.split(' ')[0]);
      // An empty file is another instance's claim being written, unless it was left long ago.
      const writing = holder === '' && Date.now() - (statSync(owner, { throwIfNoEntry: false })?.mtimeMs ?? 0) < 10_000;
      if (writing || (Number.isSafeInteger(pid) && pid > 0 && alive(pid))) {
        return writing
          ? 'the uploads of this data dir are being claimed by another instance of the service: try again in a moment'
          : `another instance of the fleet service (pid ${pid}) serving this data dir takes its uploads: upload through that one`;
      }
      // Its holder stopped without letting go (killed): take it over.
      rmSync(owner, { force: true });
    }
    return 'the uploads of this data dir are being claimed by another instance of the service: try again in a moment';
  }

  /** Let go of the data dir's uploads, if this service holds them (at shutdown). */
  releaseUploads(): void {
    const owner = join(this.#uploads, '..', 'uploads.owner');
    try {
      if (readFileSync(owner, 'utf8').trim() === this.#claim) rmSync(owner, { force: true });
    } catch {
      // Not held, or already gone.
    }
  }

  path(itemId: string, version: string, platform: string): string {
    return join(this.#files, itemId, version, platform.replace('/', '-'));
  }

  partPath(itemId: string, version: string, platform: string): string {
    return join(this.#uploads, `${itemId}_${version}_${platform.replace('/', '-')}.part`);
  }

  /** Bytes an upload holds (0 when none). */
  async held(itemId: string, version: string, platform: string): Promise<number> {
    try {
      return (await stat(this.partPath(itemId, version, platform))).size;
    } catch {
      return 0;
    }
  }

  /** Open an upload's `.part` file to write from `offset` on (0: afresh), cutting off anything past it. */
  async openPart(itemId: string, version: string, platform: string, offset: number): Promise<FileHandle> {
    await mkdir(this.#uploads, { recursive: true, mode: 0o700 });
    const handle = await open(this.partPath(itemId, version, platform), offset === 0 ? 'w' : 'r+', 0o600);
    await handle.truncate(offset);
    return handle;
  }

  /** SHA-256 of a file, read from disk in blocks. */
  async sha256(path: string): Promise<string> {
    const hash = createHash('sha256');
    for await (const block of createReadStream(path, { highWaterMark: 1024 * 1024 })) hash.update(block as Buffer);
    return hash.digest('hex');
  }

  /**
   * Put a finished upload's bytes in place as the file, beside its `.part` (which the caller drops
   * once the file's row is written). A hard link, not a rename: it fails when a file is already
   * there, so no stream can ever replace a committed file's bytes. Answers false when a file is
   * there, which the caller tells apart (a row names it: refused; none does: a leftover of a crash
   * between link and row, see {@link dropFile}).
   */
  async place(itemId: string, version: string, platform: string): Promise<boolean> {
    await mkdir(join(this.#files, itemId, version), { recursive: true, mode: 0o700 });
    try {
      await link(this.partPath(itemId, version, platform), this.path(itemId, version, platform));
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    }
  }

  /** Whether the file in place is the very bytes of the upload's `.part` (the same inode: placed by it). */
  async placedFromPart(itemId: string, version: string, platform: string): Promise<boolean> {
    const [file, part] = await Promise.all([stat(this.path(itemId, version, platform)).catch(() => null), stat(this.partPath(itemId, version, platform)).catch(() => null)]);
    return file !== null && part !== null && file.ino === part.ino && file.dev === part.dev;
  }

  /** Cut an upload's `.part` back to `length` bytes: what a refused stream wrote after it goes, what earlier streams committed stays. */
  async truncatePart(itemId: string, version: string, platform: string, length: number): Promise<void> {
    await truncate(this.partPath(itemId, version, platform), length).catch((e: unknown) => {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    });
  }

  /** Write a whole file at once (the demo fleet's files). */
  async put(itemId: string, version: string, platform: string, bytes: Uint8Array): Promise<void> {
    await mkdir(join(this.#files, itemId, version), { recursive: true, mode: 0o700 });
    const handle = await open(this.path(itemId, version, platform), 'w', 0o600);
    try {
      await handle.writeFile(bytes);
    } finally {
      await handle.close();
    }
  }

  async dropPart(itemId: string, version: string, platform: string): Promise<void> {
    await rm(this.partPath(itemId, version, platform), { force: true });
  }

  async dropFile(itemId: string, version: string, platform: string): Promise<void> {
    await rm(this.path(itemId, version, platform), { force: true });
  }

  /** Every file of an item, its uploads included (a deleted item). */
  async dropItem(itemId: string): Promise<void> {
    await rm(join(this.#files, itemId), { recursive: true, force: true });
    const parts = await readdir(this.#uploads).catch(() => [] as string[]);
    await Promise.all(parts.filter((p) => p.startsWith(`${itemId}_`)).map((p) => rm(join(this.#uploads, p), { force: true })));
  }

  /**
   * `.part` files no upload row names (left by a crash between writing and recording): removed,
   * and those of the uploads `streaming` names after the folder is read (a stream may have written
   * its row after `keep` was read).
   */
  async dropStrays(keep: readonly Upload[], streaming: () => Iterable<Upload>): Promise<number> {
    const wanted = new Set(keep.map((u) => this.partPath(u.item_id, u.version, u.platform)));
    const parts = await readdir(this.#uploads).catch(() => [] as string[]);
    const live = new Set<string>();
    for (const u of streaming()) live.add(this.partPath(u.item_id, u.version, u.platform));
    const strays = parts.map((p) => join(this.#uploads, p)).filter((p) => !wanted.has(p) && !live.has(p));
    await Promise.all(strays.map((p) => rm(p, { force: true })));
    return strays.length;
  }
}

/** Whether a process runs with this pid (one we may not signal still runs). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
