/**
 * The module upload queue: files go one at a time (each gets the link's whole speed), streamed
 * from disk by main in chunks (UploadModuleFile, a client stream) — the bytes never pass through
 * the renderer, and memory stays flat whatever the file's size (the stream's backpressure bounds
 * what is read ahead to a few chunks).
 *
 * Resuming (docs/PROTOCOL.md section 8): before every attempt the queue asks the service what it
 * holds of the file (GetModuleFileUpload) and sends only the rest (`write_offset`), hashing the held
 * prefix from disk so the SHA-256 the service records can be checked against the file's. An attempt
 * that breaks (the service restarts, the network goes) waits and tries again by itself — at once
 * when the connection comes back — so at most what was in flight is sent twice. The queue is kept
 * per profile in `uploads.json` beside the profile's cache (written with main/fs/atomic.ts: never
 * half-written, and on disk before it replaces the previous one), so uploads under way when the app
 * quit resume when it starts again.
 *
 * Browser mode has no paths to give: the page sends a file once to the backend's loopback endpoint
 * (main/web/server.ts), which stages it here; from there it is uploaded like any file on disk.
 * Staging shares its disk with the caches and the local service, and whoever holds the page's
 * session can send files as fast as the disk takes them, so it is bounded (docs/ARCHITECTURE.md,
 * "Staging limits"): the staged bytes in all (StagingOptions.maxBytes), the disk's free space left
 * (reserveBytes), the number of files; and a staged file no upload names within the hour is deleted
 * by a sweep that runs while the app does.
 */
import { createHash, randomBytes, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { open, stat, statfs } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { status } from '@grpc/grpc-js';
import type { ConnectionState } from '../../common/connection';
import { MAX_MODULE_FILE_BYTES, type Upload, type UploadCandidate, type UploadSource, type UploadState } from '../../common/registry';
import type { Connection } from '../connection/connection';
import type { ProfileScoped } from '../connection/profile-scoped';
import type { EventBus } from '../backend/events';
import { AppError, isServiceError, reasonOf } from '../backend/errors';
import type { FleetClient } from '../grpc/client';
import { chunkFrame, encodeUploadRequest, type ChunkFrame } from '../grpc/upload-frames';
import { writeFileAtomic } from '../fs/atomic';
import { StagingError } from '../web/staging';
import { inspectFiles, quickCheck } from './inspect';

/**
 * Bytes per message: the most PROTOCOL.md allows. What a break loses is what was on its way (HTTP/2
 * windows, socket buffers, the service's read buffer): measured at 0.5–0.8 MiB whatever the chunk
 * size, so 1 MiB chunks resend at most one chunk, where 64 KiB ones resent nine; and fewer messages
 * cost less per byte.
 */
export const UPLOAD_CHUNK_BYTES = 1024 * 1024;
/** After the last byte, the service's answer is awaited this long (it hashes the whole file from disk first). */
const ANSWER_MS = 180_000;
/** Chunks handed to the stream and not yet passed on to the transport, at most. */
const MAX_OUTSTANDING_CHUNKS = 16;
/** Chunks read from disk ahead of the one going out. */
const READ_AHEAD_CHUNKS = 4;
/** An attempt that moves no byte for this long is given up and tried again (a half-dead connection). */
const STALL_MS = 30_000;
/** Progress is pushed at most this often (state changes at once). */
const PROGRESS_MS = 250;
/** Speed is measured over this window. */
const SPEED_WINDOW_MS = 3_000;
/** Attempts in a row that moved nothing before an upload is marked failed (the service stays up but refuses). */
const MAX_FRUITLESS_ATTEMPTS = 6;
/** How often, and how many times in one attempt, to ask again while the service completes a file (hashing up to 512 MiB). */
const COMPLETING_POLL_MS = 500;
const COMPLETING_ASKS = 60;
const GiB = 1024 * 1024 * 1024;
/**
 * Staged bytes in all, unless configured: eight files of the largest size the registry takes, so a
 * release for every platform fits with room to spare while the queue sends the first ones, yet
 * a page cannot take more than a bounded part of the disk whatever it sends.
 */
export const DEFAULT_STAGING_MAX_BYTES = 4 * GiB;
/**
 * Free space staging leaves on its disk, unless configured: the caches, the local service's
 * database and the logs live on the same disk (`<userData>`), and what writes them answers "disk
 * full" where staging would only have been refused.
 */
export const DEFAULT_STAGING_RESERVE_BYTES = GiB;
/** Staged files at once: far more than a person drops, and a bound on inodes whatever their sizes. */
const MAX_STAGED_FILES = 1000;
/**
 * A staged file no upload names within this long is deleted. The page names its files when the
 * person presses Upload, minutes after dropping them; a page that went away never will.
 */
const STAGED_UNCLAIMED_MS = 3600_000;
/** How often the sweep looks for such files. */
const SWEEP_EVERY_MS = 5 * 60_000;
/** Files a sweep deletes at most; the rest wait for the next one (one run stays short however many there are). */
const SWEEP_BATCH = 200;
/** While a file arrives, the disk's free space is looked at again after every this many bytes (others write to it too). */
const STATFS_EVERY_BYTES = 16 * 1024 * 1024;
const STAGED_ID = /^[A-Za-z0-9_-]{16,64}$/;
const QUEUE_FILE = 'uploads.json';

export interface UploadsOptions {
  /** Where a profile's files live (its uploads.json). */
  readonly profileDir: (profileId: string) => string;
  /** Where browser mode stages the files the page sends. */
  readonly stagingDir: string;
  readonly log: (message: string) => void;
  /**
   * Whether sources may name a path (Electron: the renderer has the dropped file's path from the
   * preload). Browser mode's page never has one, so there only staged files are taken: a path would
   * let whatever drives the WebSocket probe or upload any file of this machine.
   */
  readonly acceptPaths?: boolean;
  readonly chunkBytes?: number;
  readonly retryMinMs?: number;
  readonly retryMaxMs?: number;
  /** Bounds on what browser mode stages (the defaults, or the FLEET_DESK_STAGING_* variables, unless given). */
  readonly staging?: StagingOptions;
}

/** Browser mode's staging bounds; defaults suit people, tests shorten them. */
export interface StagingOptions {
  /** Staged bytes in all: files kept and files arriving. Else `FLEET_DESK_STAGING_MAX_BYTES`, else DEFAULT_STAGING_MAX_BYTES. */
  readonly maxBytes?: number;
  /** Free space staging never takes on its disk. Else `FLEET_DESK_STAGING_RESERVE_BYTES`, else DEFAULT_STAGING_RESERVE_BYTES. */
  readonly reserveBytes?: number;
  /** A staged file no upload names within this long is deleted by the sweep (default an hour). */
  readonly unclaimedMs?: number;
  /** How often the sweep runs (default 5 minutes). */
  readonly sweepEveryMs?: number;
  /** The clock staged files' ages are measured with (default Date.now). */
  readonly now?: () => number;
}

/** A staged file on disk (its bytes at `path`, what the page called it in `path.json`). */
interface StagedFile {
  readonly path: string;
  readonly fileName: string;
  readonly bytes: number;
  /** When it was staged, on the StagingOptions.now clock. */
  readonly stagedAtMs: number;
}

/** A file being staged: what its request announced and what has arrived so far. */
interface Arrival {
  readonly declared: number;
  written: number;
}

interface Entry {
  id: string;
  moduleId: string;
  version: string;
  platform: string;
  fileName: string;
  /** The file on disk (a staged copy in browser mode). */
  path: string;
  stagedId: string | null;
  sizeBytes: number;
  /** The file as it was queued: a file changed since is not uploaded (nor stitched onto bytes sent of the old one). */
  fingerprint: Fingerprint;
  /**
   * This entry has opened a stream: bytes the service holds of this version and platform are then
   * this file's, and an attempt resumes from them. Before that, they may be another file's (an
   * upload cancelled and removed, then another file added), so the first stream starts afresh.
   */
  streamed: boolean;
  /** The file's SHA-256 when `registry.inspect` computed it for this very file (fingerprint), so streaming need not hash it again. */
  sha256: string | null;
  /** What the service said it held at the last attempt: an attempt after which it holds no more made no progress. */
  heldSeen: number;
  state: UploadState;
  /** Bytes the stream passed on to the transport (resumed from what the service held). */
  sentBytes: number;
  resumedFrom: number;
  error: { kind: string; message: string } | null;
  result: { url: string; sha256: string; sizeBytes: number } | null;
  createdAt: string;
  finishedAt: string | null;
}

interface Fingerprint {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
}

async function fingerprintOf(path: string): Promise<Fingerprint | null> {
  const s = await stat(path).catch(() => null);
  return s ? { size: s.size, mtimeMs: s.mtimeMs, ino: s.ino } : null;
}

const sameFile = (a: Fingerprint, b: Fingerprint) => a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;

interface Attempt {
  readonly entry: Entry;
  /** The service holds more of the file than at the attempt before (see Entry.heldSeen). */
  progressed: boolean;
  cancel: (() => void) | null;
  cancelled: boolean;
  /** (ms, sentBytes) samples for the speed. */
  samples: { ms: number; bytes: number }[];
}

/** What the bench and tests read: a resend shows as more bytes than the file's. */
export interface UploadStats {
  /** Bytes handed to streams (call.write), in all. */
  bytesWritten: number;
  /** Bytes the streams passed on to the HTTP/2 transport (their write callbacks), in all. */
  bytesSent: number;
  attempts: number;
  /** Runs of the staged-file sweep. */
  sweeps: number;
  /** Where streaming's time went, in ms summed over every stream (bench/upload.ts prints it per upload). */
  timing: UploadTiming;
}

/** Time an upload's streams spent, per kind, in ms (a kind waits while the others run: they do not add up to the wall time). */
export interface UploadTiming {
  /** Waiting for a chunk's read from disk (the next one is read while the current one goes out). */
  readWaitMs: number;
  /** In call.write: framing the message and handing it to HTTP/2. */
  writeMs: number;
  /** Waiting for the transport to take chunks (the bound of chunks in flight reached). */
  transportWaitMs: number;
  /** Hashing chunks as they are sent (only for a file that was not inspected). */
  hashMs: number;
  /** Progress bookkeeping and events, in the write callbacks. */
  progressMs: number;
  /** performance.now() when the last stream half-closed (the service's answer comes after its completion). */
  lastWriteAt: number;
}

export class RegistryUploads implements ProfileScoped {
  readonly #connection: Connection;
  readonly #events: EventBus;
  readonly #options: UploadsOptions;
  readonly #chunk: number;
  /** Every staged file on disk (this run's and those earlier runs left), by staged id. */
  readonly #staged = new Map<string, StagedFile>();
  /** Bytes of the files in #staged. */
  #stagedBytes = 0;
  readonly #arriving = new Set<Arrival>();
  /** Staged ids `add` is queuing (between naming and the entry): the sweep leaves them be. */
  readonly #naming = new Map<string, number>();
  readonly #maxBytes: number;
  readonly #reserveBytes: number;
  readonly #unclaimedMs: number;
  readonly #now: () => number;
  #sweepTimer: NodeJS.Timeout | null = null;
  /** Conditions logged already (a full disk, the bound reached): one line each until a file is staged again, not one per request. */
  readonly #logged = new Set<string>();
  /** SHA-256 of files `inspect` read, by path, valid while the file's fingerprint is the same. */
  readonly #digests = new Map<string, { fingerprint: Fingerprint; sha256: string }>();
  #profileId: string | null = null;
  #entries: Entry[] = [];
  #attempt: Attempt | null = null;
  #retryTimer: NodeJS.Timeout | null = null;
  #fruitless = 0;
  #lastEmitMs = 0;
  #emitTimer: NodeJS.Timeout | null = null;
  #closed = false;
  #lastStatus: ConnectionState['status'] | null = null;
  readonly #unsubscribe: () => void;
  readonly #unscope: () => void;
  readonly stats: UploadStats = { bytesWritten: 0, bytesSent: 0, attempts: 0, sweeps: 0, timing: { readWaitMs: 0, writeMs: 0, transportWaitMs: 0, hashMs: 0, progressMs: 0, lastWriteAt: 0 } };

  constructor(connection: Connection, events: EventBus, options: UploadsOptions) {
    this.#connection = connection;
    this.#events = events;
    this.#options = options;
    this.#chunk = options.chunkBytes ?? UPLOAD_CHUNK_BYTES;
    const staging = options.staging ?? {};
    this.#maxBytes = staging.maxBytes ?? sizeFromEnv('FLEET_DESK_STAGING_MAX_BYTES', DEFAULT_STAGING_MAX_BYTES, options.log);
    this.#reserveBytes = staging.reserveBytes ?? sizeFromEnv('FLEET_DESK_STAGING_RESERVE_BYTES', DEFAULT_STAGING_RESERVE_BYTES, options.log);
    this.#unclaimedMs = staging.unclaimedMs ?? STAGED_UNCLAIMED_MS;
    this.#now = staging.now ?? Date.now;
    mkdirSync(options.stagingDir, { recursive: true, mode: 0o700 });
    this.#indexStaged();
    this.#sweepStaged();
    this.#sweepTimer = setInterval(() => this.#sweepStaged(), staging.sweepEveryMs ?? SWEEP_EVERY_MS);
    this.#sweepTimer.unref();
    this.#unsubscribe = events.subscribe((event, payload) => {
      if (event === 'connection.changed') this.#onConnection(payload as ConnectionState);
    });
    this.#unscope = connection.scope(this);
  }

  // --- the bridge's operations ---

  list(): Upload[] {
    return this.#entries.map((e) => this.#view(e));
  }

  /** Resolve an upload source to a file on disk (a path is taken as given; a staged id must be one this run staged or kept). */
  resolveSource(source: UploadSource): { path: string; fileName: string } {
    if ('path' in source) {
      if (this.#options.acceptPaths === false) throw new AppError('invalid', 'This app takes files dropped on the page or picked with its file dialog, not paths.');
      if (!isAbsolute(source.path)) throw new AppError('invalid', `${source.path} is not an absolute path.`);
      return { path: source.path, fileName: basename(source.path) };
    }
    const staged = this.#staged.get(source.stagedId);
    if (!staged) throw new AppError('not-found', 'That file is no longer staged for upload: drop it on the page again.');
    return { path: staged.path, fileName: staged.fileName };
  }

  /** Look into files before they are queued (inspect.ts), keeping each good file's SHA-256 for its upload. */
  inspect(sources: readonly UploadSource[]): Promise<UploadCandidate[]> {
    return inspectFiles(
      sources,
      (source) => this.resolveSource(source),
      (path, candidate) => this.#remember(path, candidate),
    );
  }

  async #remember(path: string, candidate: UploadCandidate): Promise<void> {
    if (!candidate.sha256) return;
    const fingerprint = await fingerprintOf(path);
    // Only for the file as it was read: one that changed meanwhile is hashed again when uploaded.
    if (fingerprint && fingerprint.size === candidate.sizeBytes) this.#digests.set(path, { fingerprint, sha256: candidate.sha256 });
    if (this.#digests.size > 200) this.#digests.delete(this.#digests.keys().next().value as string);
  }

  async add(request: { moduleId: string; version: string; platform: string; source: UploadSource }): Promise<Upload> {
    const profileId = this.#profileId ?? this.#connection.current()?.profileId ?? null;
    if (!profileId) throw new AppError('not-found', 'No profile is active.');
    this.#ensureProfile(profileId);
    const stagedId = 'stagedId' in request.source ? request.source.stagedId : null;
    // Named now: a sweep while the file is checked must not take it (only the queued entry refers to it after).
    if (stagedId !== null) this.#naming.set(stagedId, (this.#naming.get(stagedId) ?? 0) + 1);
    try {
      return await this.#add(request, stagedId);
    } finally {
      if (stagedId !== null) {
        const left = (this.#naming.get(stagedId) ?? 1) - 1;
        if (left > 0) this.#naming.set(stagedId, left);
        else this.#naming.delete(stagedId);
      }
    }
  }

  async #add(request: { moduleId: string; version: string; platform: string; source: UploadSource }, stagedId: string | null): Promise<Upload> {
    const { path, fileName } = this.resolveSource(request.source);
    // registry.inspect looked into the archive already; here only what may have changed since.
    const candidate = await quickCheck(path, fileName);
    if (candidate.problem) throw new AppError('invalid', candidate.problem);
    const fingerprint = await fingerprintOf(path);
    if (!fingerprint) throw new AppError('not-found', `${fileName} is no longer there.`);
    const same = this.#entries.find((e) => e.moduleId === request.moduleId && e.version === request.version && e.platform === request.platform && !isEnded(e.state));
    if (same) throw new AppError('conflict', `${same.fileName} is already queued as ${request.version} for ${request.platform}: cancel it first to send another file.`);
    const entry: Entry = {
      id: randomBytes(9).toString('base64url'),
      moduleId: request.moduleId,
      version: request.version,
      platform: request.platform,
      fileName,
      path,
      stagedId,
      sizeBytes: fingerprint.size,
      fingerprint,
      sha256: ((d) => (d && sameFile(d.fingerprint, fingerprint) ? d.sha256 : null))(this.#digests.get(path)),
      streamed: false,
      heldSeen: -1,
      state: 'queued',
      sentBytes: 0,
      resumedFrom: 0,
      error: null,
      result: null,
      createdAt: new Date().toISOString(),
      finishedAt: null,
    };
    this.#entries.push(entry);
    this.#changed(true);
    this.#pump();
    return this.#view(entry);
  }

  /** Stop an upload now; the service keeps what it received, so a retry resumes. */
  cancel(uploadId: string): Upload {
    const entry = this.#get(uploadId);
    if (isEnded(entry.state)) return this.#view(entry);
    this.#end(entry, 'cancelled', null);
    if (this.#attempt?.entry === entry) {
      this.#attempt.cancelled = true;
      this.#attempt.cancel?.();
    }
    this.#pump();
    return this.#view(entry);
  }

  retry(uploadId: string): Upload {
    const entry = this.#get(uploadId);
    if (entry.state !== 'failed' && entry.state !== 'cancelled') throw new AppError('conflict', `The upload of ${entry.fileName} is ${entry.state}: only a failed or cancelled one can be retried.`);
    const active = this.#entries.find((e) => e !== entry && e.moduleId === entry.moduleId && e.version === entry.version && e.platform === entry.platform && !isEnded(e.state));
    if (active) throw new AppError('conflict', `${active.fileName} is already queued as ${entry.version} for ${entry.platform}.`);
    entry.state = 'queued';
    entry.error = null;
    entry.finishedAt = null;
    this.#fruitless = 0;
    this.#changed(true);
    this.#pump();
    return this.#view(entry);
  }

  remove(uploadId: string): null {
    const entry = this.#get(uploadId);
    if (!isEnded(entry.state)) throw new AppError('conflict', `The upload of ${entry.fileName} is still ${entry.state}: cancel it first.`);
    this.#entries = this.#entries.filter((e) => e !== entry);
    this.#dropStaged(entry);
    this.#changed(true);
    return null;
  }

  /** Forget a staged file the page decided not to upload (one a queued upload uses stays until that upload is removed). */
  discardStaged(stagedId: string): null {
    if (this.#entries.some((e) => e.stagedId === stagedId) || this.#naming.has(stagedId)) return null;
    this.#forgetStaged(stagedId);
    return null;
  }

  /**
   * Browser mode: keep a file the page sent (its request body) for uploading. Answers its staged id.
   * The body is written aside and renamed into place only once whole. Refused with a StagingError,
   * before a byte is read when `expectedBytes` says so already, else as soon as it crosses the line
   * (the partial file deleted): a file over the service's bound, a body longer or shorter than
   * announced, staged bytes in all over StagingOptions.maxBytes, the disk's free space under
   * reserveBytes, a full disk.
   */
  async stage(fileName: string, body: Readable, expectedBytes?: number): Promise<{ stagedId: string; fileName: string }> {
    const safeName = basename(fileName).replace(/[^\w.+-]+/g, '_').slice(0, 200) || 'module.tar.gz';
    const tooLarge = () => new StagingError('too-large', `${safeName} is over ${MAX_MODULE_FILE_BYTES / 1024 / 1024} MiB, the largest file the registry takes.`);
    if (expectedBytes !== undefined && expectedBytes > MAX_MODULE_FILE_BYTES) throw tooLarge();
    // Checked and reserved before the first await: requests arriving together each see the others' share.
    this.#refuseUnlessRoom(safeName, expectedBytes ?? 0);
    const arrival: Arrival = { declared: expectedBytes ?? 0, written: 0 };
    this.#arriving.add(arrival);
    const stagedId = randomBytes(18).toString('base64url');
    const path = join(this.#options.stagingDir, stagedId);
    const part = `${path}.part`;
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the generator below is no arrow function
    const uploads = this;
    try {
      await this.#refuseUnlessDiskRoom(safeName, expectedBytes ?? 0);
      let diskCheckedAt = 0;
      await pipeline(
        body,
        async function* (source: AsyncIterable<Buffer>) {
          for await (const chunk of source) {
            arrival.written += chunk.length;
            if (arrival.written > MAX_MODULE_FILE_BYTES) throw tooLarge();
            if (expectedBytes !== undefined && arrival.written > expectedBytes) throw new StagingError('incomplete', `${safeName} is longer than the ${expectedBytes} bytes it was announced with: add it again.`);
            // Only a body of unknown length can get here: an announced one was reserved whole.
            if (uploads.#heldBytes() > uploads.#maxBytes) throw uploads.#overBound(safeName, null, arrival);
            if (arrival.written - diskCheckedAt >= STATFS_EVERY_BYTES) {
              diskCheckedAt = arrival.written;
              await uploads.#refuseUnlessDiskRoom(safeName, expectedBytes ?? 0);
            }
            yield chunk;
          }
        },
        createWriteStream(part, { mode: 0o600 }),
      );
      if (expectedBytes !== undefined && arrival.written !== expectedBytes) throw new StagingError('incomplete', `${safeName} arrived incomplete (${arrival.written} of ${expectedBytes} bytes): add it again.`);
      writeFileSync(`${path}.json`, JSON.stringify({ fileName: safeName }), { mode: 0o600 });
      renameSync(part, path);
    } catch (e) {
      rmSync(part, { force: true });
      rmSync(`${path}.json`, { force: true });
      throw this.#stagingFailure(e, safeName);
    } finally {
      this.#arriving.delete(arrival);
    }
    this.#staged.set(stagedId, { path, fileName: safeName, bytes: arrival.written, stagedAtMs: this.#now() });
    this.#stagedBytes += arrival.written;
    // Room again: the next time it runs out is logged again.
    this.#logged.clear();
    return { stagedId, fileName: safeName };
  }

  close(): void {
    this.#closed = true;
    this.#unsubscribe();
    this.#unscope();
    if (this.#sweepTimer) clearInterval(this.#sweepTimer);
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    if (this.#emitTimer) clearTimeout(this.#emitTimer);
    if (this.#attempt) {
      // Not a cancel: the upload stays queued in uploads.json and resumes next start.
      this.#attempt.cancelled = true;
      this.#attempt.cancel?.();
    }
  }

  // --- profiles ---

  switchTo(profileId: string | null): void {
    if (profileId) this.#ensureProfile(profileId);
  }

  #onConnection(state: ConnectionState): void {
    // Back online: a waiting upload goes now, not at its backoff's end (only on the change: a sync
    // announces itself while online too).
    const cameOnline = state.status === 'online' && this.#lastStatus !== 'online';
    this.#lastStatus = state.status;
    if (cameOnline && !this.#attempt) this.#resume();
  }

  /** Waiting uploads are queued again (in their order) and the queue goes on. */
  #resume(): void {
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#retryTimer = null;
    let any = false;
    for (const e of this.#entries) {
      if (e.state !== 'waiting') continue;
      e.state = 'queued';
      any = true;
    }
    if (any) this.#changed(true);
    this.#pump();
  }

  #ensureProfile(profileId: string): void {
    if (this.#profileId === profileId) return;
    if (this.#attempt) {
      // Another profile is now active: this one's upload stops where it is and resumes when it is active again.
      const attempt = this.#attempt;
      attempt.cancelled = true;
      attempt.cancel?.();
      if (!isEnded(attempt.entry.state)) attempt.entry.state = 'queued';
      this.#save();
    }
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#retryTimer = null;
    this.#profileId = profileId;
    this.#entries = this.#load(profileId);
    this.#fruitless = 0;
    this.#changed(false);
    this.#pump();
  }

  #queueFile(profileId: string): string {
    return join(this.#options.profileDir(profileId), QUEUE_FILE);
  }

  #load(profileId: string): Entry[] {
    const file = this.#queueFile(profileId);
    if (!existsSync(file)) return [];
    try {
      const stored = JSON.parse(readFileSync(file, 'utf8')) as Entry[];
      if (!Array.isArray(stored)) return [];
      // What was under way when the app stopped goes on (resuming from what the service holds).
      return stored.map((e) => ({
        ...e,
        // A queue written by an older build: without a fingerprint the file counts as changed.
        fingerprint: e.fingerprint ?? { size: e.sizeBytes, mtimeMs: -1, ino: -1 },
        streamed: e.streamed ?? false,
        sha256: e.sha256 ?? null,
        heldSeen: e.heldSeen ?? -1,
        state: e.state === 'uploading' || e.state === 'waiting' ? 'queued' : e.state,
      }));
    } catch (e) {
      this.#options.log(`registry: the upload queue ${file} could not be read (${e instanceof Error ? e.message : String(e)}); starting an empty one`);
      return [];
    }
  }

  #save(): void {
    if (!this.#profileId) return;
    const file = this.#queueFile(this.#profileId);
    try {
      writeFileAtomic(file, JSON.stringify(this.#entries));
      this.#logged.delete('save');
    } catch (e) {
      // Saved again at every change: a full disk is said once, not once per progress step.
      this.#logOnce('save', `registry: the upload queue could not be saved (${e instanceof Error ? e.message : String(e)})`);
    }
  }

  // --- running ---

  #pump(): void {
    if (this.#attempt || this.#closed) return;
    // While an upload waits out a break, the queue waits with it (what broke it most likely breaks the next too).
    if (this.#entries.some((e) => e.state === 'waiting')) return;
    const next = this.#entries.find((e) => e.state === 'queued');
    if (!next) return;
    const attempt: Attempt = { entry: next, progressed: false, cancel: null, cancelled: false, samples: [] };
    this.#attempt = attempt;
    void this.#run(attempt)
      .catch((e: unknown) => this.#failed(attempt, e))
      .finally(() => {
        if (this.#attempt === attempt) this.#attempt = null;
        this.#pump();
      });
  }

  async #run(attempt: Attempt): Promise<void> {
    const { entry } = attempt;
    const current = this.#connection.current();
    const client = current?.client;
    if (!client || current.profileId !== this.#profileId) {
      const why = (this.#connection.state.error?.message ?? 'The service cannot be reached').replace(/\.$/, '');
      this.#wait(attempt, new AppError('offline', `${why}. The upload goes on once the service is reachable.`));
      return;
    }
    entry.state = 'uploading';
    entry.error = null;
    this.#changed(true);
    this.stats.attempts += 1;

    const now = await fingerprintOf(entry.path);
    if (!now) throw new AppError('not-found', entry.stagedId ? `The staged copy of ${entry.fileName} is gone: drop the file on the page again.` : `${entry.fileName} is no longer at ${entry.path}.`);
    if (!sameFile(now, entry.fingerprint)) throw new AppError('conflict', `${entry.fileName} changed since it was queued: add it again (as a new upload).`);
    const size = now.size;
    const info = { moduleId: entry.moduleId, version: entry.version, platform: entry.platform };

    let held = await client.call('check the upload', client.app.getModuleFileUpload, { moduleFileInfo: info });
    // The service has every byte (this upload's, sent before a break) and is recording the file: its answer comes in moments.
    for (let asked = 1; held.completing && asked < COMPLETING_ASKS && !attempt.cancelled; asked++) {
      await new Promise((resolve) => setTimeout(resolve, COMPLETING_POLL_MS));
      if (attempt.cancelled) return;
      held = await client.call('check the upload', client.app.getModuleFileUpload, { moduleFileInfo: info });
    }
    if (attempt.cancelled) return;
    if (held.completing) return this.#wait(attempt, new AppError('offline', 'The service is still checking the file it received; Fleet Desk asks again shortly.'));
    attempt.progressed = held.committedBytes > entry.heldSeen;
    entry.heldSeen = held.committedBytes;
    if (held.complete) {
      // Finished before (the app stopped before it heard): done, if the service holds this very file.
      const sha256 = entry.sha256 ?? (await this.#hash(attempt, 0, size));
      if (attempt.cancelled) return;
      if (sha256 === held.sha256 && size === held.sizeBytes) return this.#done(attempt, { url: held.url, sha256, sizeBytes: size });
      throw new AppError('conflict', `Version ${entry.version} already has a different file for ${entry.platform} (uploaded files never change): upload this one as a new version.`);
    }
    // What the service holds is this file's only if this entry sent it (see Entry.streamed); offset 0 makes the service discard the rest.
    const offset = entry.streamed && held.committedBytes > 0 && held.committedBytes <= size ? held.committedBytes : 0;
    entry.resumedFrom = offset;
    entry.sentBytes = offset;
    this.#changed(true);

    // The file's SHA-256: known from its inspection, or computed now (the held prefix from disk, the rest as it is sent).
    const hash = entry.sha256 === null ? createHash('sha256') : null;
    if (hash && offset > 0) await this.#hash(attempt, 0, offset, hash);
    if (attempt.cancelled) return;

    const answer = await this.#stream(attempt, client, info, offset, size, hash);
    if (attempt.cancelled || !answer) return;
    const sha256 = entry.sha256 ?? (hash as Hash).digest('hex');
    if (answer.sha256 !== sha256 || answer.sizeBytes !== size) {
      throw new AppError('conflict', `The service stored ${answer.sizeBytes} bytes with SHA-256 ${answer.sha256.slice(0, 12)}…, but ${entry.fileName} is ${size} bytes with ${sha256.slice(0, 12)}…: version ${entry.version} for ${entry.platform} does not hold this file, and uploaded files never change. Upload the file as a new version.`);
    }
    this.#done(attempt, { url: answer.url, sha256, sizeBytes: size });
  }

  /** One UploadModuleFile stream from `offset`: resolves with the service's answer, or null when cancelled. */
  #stream(attempt: Attempt, client: FleetClient, info: { moduleId: string; version: string; platform: string }, offset: number, size: number, hash: Hash | null): Promise<{ url: string; sha256: string; sizeBytes: number } | null> {
    const { entry } = attempt;
    return new Promise((resolve, reject) => {
      let ended = false;
      let stallTimer: NodeJS.Timeout | null = null;
      let cancelCall: (() => void) | null = null;
      const finish = (error: unknown, answer: { url: string; sha256: string; sizeBytes: number } | null) => {
        if (ended) return;
        ended = true;
        if (stallTimer) clearTimeout(stallTimer);
        // A failure on this side (a read, the file) leaves the call open: the service would wait for the next chunk.
        if (error) cancelCall?.();
        if (attempt.cancelled) resolve(null);
        else if (error) reject(error);
        else resolve(answer);
      };
      void client
        .uploadStream((error, response) => finish(error, response))
        .then(async (call) => {
          cancelCall = () => call.cancel();
          attempt.cancel = cancelCall;
          if (attempt.cancelled || ended) return call.cancel();
          const watch = (ms: number, message: string) => {
            if (ended) return;
            if (stallTimer) clearTimeout(stallTimer);
            stallTimer = setTimeout(() => finish(new AppError('offline', message), null), ms);
            stallTimer.unref();
          };
          const stalled = () => watch(STALL_MS, `The service took no bytes for ${STALL_MS / 1000} s.`);
          stalled();
          call.write(encodeUploadRequest({ moduleFile: { $case: 'moduleFileInfo', value: info }, writeOffset: offset }));
          if (!entry.streamed) {
            entry.streamed = true;
            this.#save();
          }
          const file = await open(entry.path, 'r');
          try {
            // Messages of a whole chunk whose write has called back (grpc-js copied them into its frames): reused, so streaming
            // allocates almost nothing per chunk. A megabyte allocated per chunk made main collect garbage for a quarter of an
            // upload's time (docs/BENCHMARKS.md, upload), on cores the service needs.
            const spare: ChunkFrame[] = [];
            // The next chunk is read from disk while the current one goes out, into the message it goes in (upload-frames.ts).
            const read = (at: number) => {
              const n = Math.min(this.#chunk, size - at);
              const frame = (n === this.#chunk ? spare.pop() : undefined) ?? chunkFrame(n);
              return file.read(frame.body, 0, n, at).then(({ bytesRead }) => {
                if (bytesRead !== n) throw new AppError('conflict', `${entry.fileName} changed while it was being uploaded: add it again.`);
                return frame;
              });
            };
            // Chunks being read ahead, in file order: a few, so a read the thread pool is slow to run (a busy machine) is
            // not waited for while the transport has room (bench: 1.5–4.4 s of a 510 MiB upload waited on reads with one ahead).
            const reads: Promise<ChunkFrame>[] = [];
            let readAt = offset;
            const readAhead = () => {
              while (reads.length < READ_AHEAD_CHUNKS && readAt < size) {
                reads.push(read(readAt));
                readAt += Math.min(this.#chunk, size - readAt);
              }
            };
            readAhead();
            let outstanding = 0;
            let wake: (() => void) | null = null;
            const poll = setInterval(() => ended && wake?.(), 50);
            try {
              const timing = this.stats.timing;
              while (!ended) {
                const pending = reads.shift();
                if (!pending) break;
                let mark = performance.now();
                const frame = await pending;
                const chunk = frame.body;
                if (ended) break;
                timing.readWaitMs += performance.now() - mark;
                readAhead();
                if (hash) {
                  mark = performance.now();
                  hash.update(chunk);
                  timing.hashMs += performance.now() - mark;
                }
                this.stats.bytesWritten += chunk.length;
                outstanding += 1;
                mark = performance.now();
                call.write(frame.message, (error?: Error | null) => {
                  outstanding -= 1;
                  if (chunk.length === this.#chunk && spare.length < MAX_OUTSTANDING_CHUNKS) spare.push(frame);
                  wake?.();
                  // grpc-js calls back for writes that failed too (after a cancel or a break): those bytes went nowhere.
                  if (error || ended) return;
                  const progressed = performance.now();
                  entry.sentBytes += chunk.length;
                  this.stats.bytesSent += chunk.length;
                  stalled();
                  this.#progress(attempt);
                  timing.progressMs += performance.now() - progressed;
                });
                timing.writeMs += performance.now() - mark;
                // A few chunks in memory at most, whatever the file's size (the stream's own buffer would take 16).
                mark = performance.now();
                while (outstanding >= MAX_OUTSTANDING_CHUNKS && !ended) await new Promise<void>((r) => (wake = r));
                timing.transportWaitMs += performance.now() - mark;
                wake = null;
              }
            } finally {
              clearInterval(poll);
              // A read under way when the stream ended is not left to fail unheard.
              for (const left of reads) left.catch(() => undefined);
            }
            if (!ended) {
              call.end();
              this.stats.timing.lastWriteAt = performance.now();
              // Every byte is out: the service hashes and records the file (seconds for a large one on a slow disk).
              watch(ANSWER_MS, `The service did not confirm the upload within ${ANSWER_MS / 1000} s of its last byte.`);
            }
          } finally {
            await file.close();
          }
        })
        .catch((e: unknown) => finish(e, null));
    });
  }

  /** SHA-256 of the file's bytes [from, to), read from disk (into `into` when given). Answers the hex digest when it made the hash. */
  async #hash(attempt: Attempt, from: number, to: number, into?: Hash): Promise<string> {
    const hash = into ?? createHash('sha256');
    if (to > from) {
      for await (const chunk of createReadStream(attempt.entry.path, { start: from, end: to - 1, highWaterMark: 1024 * 1024 })) {
        if (attempt.cancelled) break;
        hash.update(chunk as Buffer);
      }
    }
    return into ? '' : hash.digest('hex');
  }

  #done(attempt: Attempt, result: { url: string; sha256: string; sizeBytes: number }): void {
    const { entry } = attempt;
    entry.sentBytes = entry.sizeBytes;
    entry.result = result;
    this.#fruitless = 0;
    this.#end(entry, 'done', null);
    this.#dropStaged(entry);
  }

  #failed(attempt: Attempt, e: unknown): void {
    const { entry } = attempt;
    if (attempt.cancelled || isEnded(entry.state)) return;
    const client = this.#connection.current()?.client;
    if (isServiceError(e)) {
      const reason = reasonOf(e);
      const retryable =
        e.code === status.UNAVAILABLE ||
        e.code === status.DEADLINE_EXCEEDED ||
        e.code === status.INTERNAL ||
        e.code === status.UNKNOWN ||
        e.code === status.CANCELLED ||
        e.code === status.RESOURCE_EXHAUSTED ||
        (e.code === status.ABORTED && (reason === 'UPLOAD_IN_PROGRESS' || reason === 'UPLOAD_IDLE')) ||
        (e.code === status.FAILED_PRECONDITION && reason === 'UPLOAD_OFFSET_MISMATCH');
      const error =
        e.code === status.CANCELLED
          ? new AppError('offline', 'The connection to the service was reset while the file was uploading.')
          : client
            ? client.errorOf(e, 'upload the file')
            : new AppError('offline', e.details || e.message);
      if (retryable) return this.#wait(attempt, error);
      return this.#end(entry, 'failed', error);
    }
    const error = e instanceof AppError ? e : new AppError('internal', e instanceof Error ? e.message : String(e));
    if (error.kind === 'offline') return this.#wait(attempt, error);
    this.#end(entry, 'failed', error);
  }

  /** The attempt broke: wait and try again (resuming), unless tries in a row keep moving nothing. */
  #wait(attempt: Attempt, error: AppError): void {
    const { entry } = attempt;
    this.#fruitless = attempt.progressed ? 0 : this.#fruitless + 1;
    if (this.#fruitless > MAX_FRUITLESS_ATTEMPTS && this.#connection.state.status === 'online') {
      return this.#end(entry, 'failed', new AppError(error.kind, `${error.message} (gave up after ${MAX_FRUITLESS_ATTEMPTS} tries; retry when the service is fixed)`));
    }
    entry.state = 'waiting';
    entry.error = { kind: error.kind, message: error.message };
    this.#changed(true);
    const min = this.#options.retryMinMs ?? 1_000;
    const max = this.#options.retryMaxMs ?? 30_000;
    const delay = Math.min(max, min * 2 ** Math.max(0, this.#fruitless - 1));
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = null;
      if (!this.#attempt) this.#resume();
    }, delay);
    this.#retryTimer.unref();
  }

  #end(entry: Entry, state: 'done' | 'failed' | 'cancelled', error: AppError | null): void {
    entry.state = state;
    entry.error = error ? { kind: error.kind, message: error.message } : null;
    entry.finishedAt = new Date().toISOString();
    this.#changed(true);
  }

  // --- views and events ---

  #progress(attempt: Attempt): void {
    const now = Date.now();
    attempt.samples.push({ ms: now, bytes: attempt.entry.sentBytes });
    while (attempt.samples.length > 2 && (attempt.samples[0]?.ms ?? now) < now - SPEED_WINDOW_MS) attempt.samples.shift();
    this.#changed(false);
  }

  #speed(entry: Entry): { bytesPerSecond: number | null; secondsLeft: number | null } {
    const attempt = this.#attempt;
    if (!attempt || attempt.entry !== entry || entry.state !== 'uploading') return { bytesPerSecond: null, secondsLeft: null };
    const first = attempt.samples[0];
    const last = attempt.samples.at(-1);
    if (!first || !last || last.ms - first.ms < 200) return { bytesPerSecond: null, secondsLeft: null };
    const bytesPerSecond = ((last.bytes - first.bytes) * 1000) / (last.ms - first.ms);
    return { bytesPerSecond, secondsLeft: bytesPerSecond > 0 ? (entry.sizeBytes - entry.sentBytes) / bytesPerSecond : null };
  }

  #view(e: Entry): Upload {
    return {
      id: e.id,
      moduleId: e.moduleId,
      version: e.version,
      platform: e.platform,
      fileName: e.fileName,
      sizeBytes: e.sizeBytes,
      sentBytes: e.sentBytes,
      resumedFrom: e.resumedFrom,
      state: e.state,
      ...this.#speed(e),
      error: e.error,
      result: e.result,
      createdAt: e.createdAt,
      finishedAt: e.finishedAt,
    };
  }

  /** Push the queue: a state change at once (and saved), progress at most every PROGRESS_MS. */
  #changed(stateChanged: boolean): void {
    if (stateChanged) this.#save();
    const now = Date.now();
    if (stateChanged || now - this.#lastEmitMs >= PROGRESS_MS) {
      if (this.#emitTimer) clearTimeout(this.#emitTimer);
      this.#emitTimer = null;
      this.#lastEmitMs = now;
      this.#events.emit('registry.uploads', this.list());
      return;
    }
    this.#emitTimer ??= setTimeout(() => {
      this.#emitTimer = null;
      this.#lastEmitMs = Date.now();
      this.#events.emit('registry.uploads', this.list());
    }, PROGRESS_MS - (now - this.#lastEmitMs));
  }

  #get(uploadId: string): Entry {
    const entry = this.#entries.find((e) => e.id === uploadId);
    if (!entry) throw new AppError('not-found', 'That upload is not in the queue (it was removed, or belongs to another profile).');
    return entry;
  }

  // --- staged files (browser mode) ---

  /** Staged bytes in all: files kept, and files arriving at what they announced (or what came so far), `except` one of them. */
  #heldBytes(except?: Arrival): number {
    let held = this.#stagedBytes;
    for (const a of this.#arriving) if (a !== except) held += Math.max(a.declared, a.written);
    return held;
  }

  /** Refuses a file of `size` bytes (0: not announced) that the staging bounds have no room for. */
  #refuseUnlessRoom(name: string, size: number): void {
    if (this.#staged.size + this.#arriving.size >= MAX_STAGED_FILES) {
      this.#logOnce('files', `registry: staging refused files: ${MAX_STAGED_FILES} are staged already`);
      throw new StagingError('no-room', `${MAX_STAGED_FILES} files are waiting to be uploaded already, so ${name} was not taken. Upload or remove files in the upload queue, or discard files you added and did not upload, then add it again.`);
    }
    if (this.#heldBytes() + size > this.#maxBytes) throw this.#overBound(name, size, null);
  }

  #overBound(name: string, size: number | null, own: Arrival | null): StagingError {
    const held = this.#heldBytes(own ?? undefined);
    const sized = size ? `${name} (${sizeText(size)})` : name;
    this.#logOnce('bound', `registry: staging refused files: ${sizeText(held)} staged of the ${sizeText(this.#maxBytes)} allowed (FLEET_DESK_STAGING_MAX_BYTES)`);
    if (size !== null && size > this.#maxBytes) {
      return new StagingError('no-room', `${sized} is larger than the ${sizeText(this.#maxBytes)} this app keeps for files waiting to be uploaded (FLEET_DESK_STAGING_MAX_BYTES where it was started raises it), so it was not taken.`);
    }
    return new StagingError('no-room', `Files waiting to be uploaded take ${sizeText(held)} of the ${sizeText(this.#maxBytes)} this app keeps for them, so ${sized} ${size === null ? 'was cut off when it went over' : 'was not taken'}. Upload or remove files in the upload queue, or discard files you added and did not upload, then add it again.`);
  }

  /** Refuses when what is still to arrive (this file's rest and the others') would leave the disk less free than the reserve. */
  async #refuseUnlessDiskRoom(name: string, size: number): Promise<void> {
    let free: number;
    try {
      const fs = await statfs(this.#options.stagingDir);
      free = fs.bavail * fs.bsize;
    } catch {
      // Not known here: the write itself says when the disk is full.
      return;
    }
    let coming = 0;
    for (const a of this.#arriving) coming += Math.max(0, a.declared - a.written);
    if (free - coming >= this.#reserveBytes) return;
    const dir = this.#options.stagingDir;
    this.#logOnce('reserve', `registry: staging refused files: the disk holding ${dir} has ${sizeText(free)} free, and staging leaves ${sizeText(this.#reserveBytes)} of it (FLEET_DESK_STAGING_RESERVE_BYTES)`);
    throw new StagingError(
      'no-room',
      `The disk holding this app's data (${dir}) has ${sizeText(free)} free; keeping ${size ? `${name} (${sizeText(size)})` : name} would leave less than the ${sizeText(this.#reserveBytes)} the app keeps free there for its caches and the local service. Free space on that disk (delete files you no longer need, or remove files from the upload queue), then add it again.`,
    );
  }

  /** What a failed staging answers: a full disk as a StagingError saying what to free (logged once); anything else as it was. */
  #stagingFailure(e: unknown, name: string): unknown {
    const code = (e as NodeJS.ErrnoException | null)?.code;
    if (code !== 'ENOSPC' && code !== 'EDQUOT') return e;
    const dir = this.#options.stagingDir;
    const full = code === 'EDQUOT' ? `Your disk quota on the disk holding this app's data (${dir}) is used up` : `The disk holding this app's data (${dir}) is full`;
    this.#logOnce('disk-full', `registry: staging failed: ${code === 'EDQUOT' ? 'the disk quota is used up on' : 'the disk is full at'} ${dir} (${code}); files the page sends are refused until space is freed`);
    return new StagingError('disk-full', `${full}, so ${name} could not be kept for upload; what had arrived of it was deleted. Free space on that disk (delete files you no longer need, or remove files from the upload queue), then add it again.`);
  }

  #logOnce(condition: string, line: string): void {
    if (this.#logged.has(condition)) return;
    this.#logged.add(condition);
    this.#options.log(line);
  }

  /**
   * The staged files on disk at start. A `.part` is a file a run stopped receiving (none arrives
   * yet); a `.json` alone lost its file. A file whose `.json` is unreadable stays (a queued upload
   * knows its name), under a placeholder name.
   */
  #indexStaged(): void {
    const dir = this.#options.stagingDir;
    try {
      const names = new Set(readdirSync(dir));
      const wallNow = Date.now();
      const now = this.#now();
      for (const name of names) {
        const [id = '', suffix = ''] = name.split(/(?=\.(?:json|part)$)/);
        if (!STAGED_ID.test(id)) continue;
        const path = join(dir, id);
        if (suffix === '.part' || (suffix === '.json' && !names.has(id))) {
          rmSync(join(dir, name), { force: true });
          continue;
        }
        if (suffix !== '') continue;
        let fileName = 'module.tar.gz';
        try {
          fileName = (JSON.parse(readFileSync(`${path}.json`, 'utf8')) as { fileName: string }).fileName;
        } catch {
          // Kept under the placeholder (see above).
        }
        const stats = statSync(path, { throwIfNoEntry: false });
        if (!stats?.isFile()) continue;
        // Its age on this run's clock: staged when it was last written.
        this.#staged.set(id, { path, fileName, bytes: stats.size, stagedAtMs: now - Math.max(0, wallNow - stats.mtimeMs) });
        this.#stagedBytes += stats.size;
      }
    } catch (e) {
      this.#options.log(`registry: reading the staged uploads failed (${e instanceof Error ? e.message : String(e)})`);
    }
  }

  /** Delete a staged file and its name (the bytes it held are free for staging again). */
  #forgetStaged(stagedId: string): void {
    const staged = this.#staged.get(stagedId);
    this.#staged.delete(stagedId);
    if (staged) this.#stagedBytes -= staged.bytes;
    const path = staged?.path ?? join(this.#options.stagingDir, stagedId);
    rmSync(path, { force: true });
    rmSync(`${path}.json`, { force: true });
  }

  #dropStaged(entry: Entry): void {
    if (entry.stagedId) this.#forgetStaged(entry.stagedId);
  }

  /**
   * Staged files no upload named within StagingOptions.unclaimedMs are left over (inspected but never
   * queued, a page closed or reloaded, a run that ended first): deleted, SWEEP_BATCH at most a run.
   * One any profile's queue still refers to stays, however old: every profile's uploads.json is read,
   * not only the active one's, so a file queued in a profile the user switched away from is kept.
   */
  #sweepStaged(): void {
    this.stats.sweeps += 1;
    try {
      const now = this.#now();
      const old = [...this.#staged].filter(([id, f]) => now - f.stagedAtMs >= this.#unclaimedMs && !this.#naming.has(id));
      if (old.length === 0) return;
      const referenced = new Set<string>();
      for (const e of this.#entries) if (e.stagedId) referenced.add(e.stagedId);
      const profilesRoot = dirname(this.#options.profileDir('_'));
      for (const id of existsSync(profilesRoot) ? readdirSync(profilesRoot) : []) {
        const file = join(profilesRoot, id, QUEUE_FILE);
        if (!existsSync(file)) continue;
        // A queue that cannot be read (not one that cannot be parsed) stops the sweep: it may refer to any of them.
        const text = readFileSync(file, 'utf8');
        try {
          for (const e of JSON.parse(text) as { stagedId?: string | null }[]) if (e.stagedId) referenced.add(e.stagedId);
        } catch {
          // An unparseable queue is started afresh when its profile opens (#load); nothing of it is kept here.
        }
      }
      let deleted = 0;
      for (const [id] of old) {
        if (referenced.has(id)) continue;
        this.#forgetStaged(id);
        if (++deleted >= SWEEP_BATCH) break;
      }
    } catch (e) {
      this.#options.log(`registry: sweeping staged uploads failed (${e instanceof Error ? e.message : String(e)})`);
    }
  }
}

/** A size from the environment (`4294967296`, `4G`, `512MiB`; K, M, G, T are powers of 1024), else `fallback`. */
function sizeFromEnv(name: string, fallback: number, log: (message: string) => void): number {
  const text = process.env[name];
  if (text === undefined || text.trim() === '') return fallback;
  const size = parseSize(text);
  if (size !== null) return size;
  log(`registry: ${name}=${JSON.stringify(text)} is no size (bytes, or a number with K, M, G or T); using ${sizeText(fallback)}`);
  return fallback;
}

/** Bytes in `text`: a whole number, or a number with K, M, G or T (powers of 1024, optionally followed by "iB" or "B"); null when it is none. */
export function parseSize(text: string): number | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*$/i.exec(text);
  if (!match) return null;
  const size = Math.floor(Number(match[1]) * 1024 ** ['', 'k', 'm', 'g', 't'].indexOf((match[2] ?? '').toLowerCase()));
  return Number.isSafeInteger(size) ? size : null;
}

/** "4 GiB", "1.3 GiB", "600 MiB": sizes in messages people read. */
function sizeText(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${bytes} bytes` : `${Number.isInteger(value) || value >= 100 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}

function isEnded(state: UploadState): boolean {
  return state === 'done' || state === 'failed' || state === 'cancelled';
}
