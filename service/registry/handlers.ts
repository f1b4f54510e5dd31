import { status } from '@grpc/grpc-js';
import type { AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import { PackageType, Visibility, type UploadModuleFileRequest } from '../../proto/gen/fleet/app/v1/registry';
import type { Grant, Permissions, RegistryTarget } from '../permissions/engine';
import { FleetError, invalidArgument, Reason } from '../errors';
import { PageTokens, pageSize } from '../paging';
import type { CallContext, ClientStreamHandlers, UnaryHandlers } from '../rpc';
import { notFound } from '../validate';
import type { RegistryFiles } from './files';
import { apps, archivePath, httpUrl, models, registryText } from './validate';
import { wireId } from '../permissions/engine';
import type { RegistryStore } from './store';
import { fileKey, UploadStreams, type Streaming } from './streams';

/** Largest chunk of an upload. */
export const MAX_CHUNK_BYTES = 1024 * 1024;
/** Largest module file (docs/PROTOCOL.md section 8). */
export const MAX_FILE_BYTES = 512 * 1024 * 1024;
/** How long a new stream of a file waits for the stream it takes over to stop. */
const TAKE_OVER_MS = 5_000;
/**
 * How long a new stream of a file waits for another stream's completion (hashing and recording up
 * to {@link MAX_FILE_BYTES}: a second or two on a local disk, far more on a slow one).
 */
const COMPLETION_WAIT_MS = 60_000;
/** How long the bytes of an interrupted upload are kept for a stream to continue them. */
export const UPLOAD_KEPT_MS = 24 * 60 * 60 * 1000;

/** What one client can hold of the upload machinery (docs/PROTOCOL.md section 8, "Limits"). */
export interface UploadLimits {
  /**
   * A stream that sends nothing for this long ends ABORTED (UPLOAD_IDLE), its bytes kept for a
   * resume: an idle stream holds a file descriptor, and a dead peer that keepalive has not caught
   * yet must not hold it for ever.
   */
  readonly idleMs: number;
  /** Upload streams one API key may have open at once; more are RESOURCE_EXHAUSTED (UPLOAD_LIMIT). */
  readonly perKey: number;
  /** Upload streams the service takes at once, all keys together; more are RESOURCE_EXHAUSTED (UPLOAD_LIMIT). */
  readonly total: number;
}

export const DEFAULT_UPLOAD_LIMITS: UploadLimits = { idleMs: 60_000, perKey: 8, total: 64 };

function registryTarget(ctx: CallContext): RegistryTarget {
  const target = ctx.target;
  if (target?.kind !== 'registry' && target?.kind !== 'module' && target?.kind !== 'package') {
    throw new Error(`${ctx.method}: the permission table resolved ${target?.kind ?? 'nothing'}, not a registry item`);
  }
  return target;
}

/** Organizations whose private items the caller reads: those it holds an organization role in. */
function memberOf(grants: readonly Grant[]): string[] {
  return [...new Set(grants.filter((g) => g.resourceType === 'organization').map((g) => g.organizationId))];
}

const needsNamespace = (visibility: number) => visibility !== Visibility.VISIBILITY_PRIVATE;

function namespaceRequired(what: string): FleetError {
  return new FleetError(status.FAILED_PRECONDITION, Reason.NAMESPACE_REQUIRED, `a public ${what} needs its organization's public namespace: set one with UpdateOrganization first`, 'visibility');
}

export interface RegistryHandlerOptions {
  /** Whether an organization exists (listings of an unknown one are NOT_FOUND). */
  readonly orgExists: (orgId: string) => boolean;
  readonly now?: () => number;
  /** Bounds on upload streams; each unset one is {@link DEFAULT_UPLOAD_LIMITS}'. */
  readonly uploads?: Partial<UploadLimits>;
  /** The streams under way, shared with {@link sweepUploads} (which must leave their bytes alone). */
  readonly streams?: UploadStreams;
  /**
   * Null when this service may take uploads of its data dir, else why not: another instance serving
   * the same data dir takes them (RegistryFiles.claimUploads). One stream per file holds only within
   * one process, so only one process may write a data dir's uploads.
   */
  readonly uploadsElsewhere?: () => string | null;
  /**
   * Where each upload stream's timing goes (benchmarks: bench/upload.ts reads it to say where an
   * upload's seconds went on this side). Unset: to stderr as one JSON line when the environment has
   * `FLEET_SERVICE_UPLOAD_TIMING=1`, else nowhere.
   */
  readonly uploadTiming?: (timing: UploadTiming) => void;
}

/** One upload stream's time on the service, in ms: what bench/upload.ts prints beside the client's. */
export interface UploadTiming {
  readonly bytes: number;
  /** From the stream's first message to its answer. */
  readonly totalMs: number;
  /** Waiting for the next message (the transport, the client). */
  readonly waitMs: number;
  /** Writing chunks to the `.part` file. */
  readonly writeMs: number;
  /** The `.part`'s fsync at the end. */
  readonly syncMs: number;
  /** Completing: the SHA-256 of the whole file, placing and recording it. */
  readonly commitMs: number;
}

const timingFromEnv = (): ((timing: UploadTiming) => void) | null =>
  process.env.FLEET_SERVICE_UPLOAD_TIMING === '1' ? (timing) => process.stderr.write(`[fleet-service] upload timing ${JSON.stringify(timing)}\n`) : null;

/** AppService's registry calls. Permissions are checked by the rule table before these run. */
export function createRegistryHandlers(
  store: RegistryStore,
  files: RegistryFiles,
  permissions: Permissions,
  tokens: PageTokens,
  options: RegistryHandlerOptions,
): UnaryHandlers<typeof AppServiceService, CallContext> & ClientStreamHandlers<typeof AppServiceService, CallContext> {
  const now = options.now ?? Date.now;
  const limits: UploadLimits = { ...DEFAULT_UPLOAD_LIMITS, ...options.uploads };
  const reportTiming = options.uploadTiming ?? timingFromEnv();
  /**
   * Files being uploaded right now, one stream per file: a newer stream takes over a receiving one
   * (the older one stops where it is and keeps what it wrote), as tus servers do: after a network
   * break the service may not notice for a while that the old stream is dead, and the client's
   * resume must not wait for that. A completing stream is never taken over: a newer one waits for
   * it, then finds the file committed (ALREADY_EXISTS), so no stream ever writes over a file being
   * or having been committed.
   */
  const streams = options.streams ?? new UploadStreams();
  const uploading = streams.byFile;
  /** How often a receiving stream touches its upload row, so that the sweep never takes a long, slow upload for an abandoned one. */
  const touchMs = Math.min(UPLOAD_KEPT_MS / 4, 5 * 60_000);

  /** An organization a listing names: NOT_FOUND unless it exists and the caller sees it or it shows something public. */
  function listedOrg(orgId: string, field: string, grants: readonly Grant[], type?: number): void {
    const seen = grants.some((g) => g.organizationId === orgId);
    if (!options.orgExists(orgId) || (!seen && !store.hasPublic(orgId, type))) throw notFound(Reason.ORGANIZATION_NOT_FOUND, 'organization', orgId, field);
  }

  return {
    async getRegistryItem(request, ctx) {
      return { item: store.toItem(store.row(registryTarget(ctx).id), request.includeMarkdownDocumentation) };
    },

    async listRegistryItemVersions(_request, ctx) {
      return { versions: store.versions(store.row(registryTarget(ctx).id)) };
    },

    async createRegistryItem(request) {
      store.create(request.organizationId, request.name, request.type, new Date(now()));
      return {};
    },

    async updateRegistryItem(request, ctx) {
      const target = registryTarget(ctx);
      if (request.type !== target.type) {
        throw invalidArgument('type', Reason.TYPE_MISMATCH, `type must be the item's own type (${PackageType[target.type] ?? target.type}): an item never changes type`);
      }
      if (needsNamespace(request.visibility) && target.namespace === '') throw namespaceRequired('registry item');
      store.update(target.id, { description: registryText('description', request.description), visibility: request.visibility, url: request.url }, new Date(now()));
      return {};
    },

    async listRegistryItems(request, ctx) {
      if (request.organizationId !== '') listedOrg(request.organizationId, 'organization_id', ctx.grants);
      const filter = {
        organizationId: request.organizationId === '' ? null : request.organizationId,
        types: [...new Set(request.types)].sort(),
        visibilities: [...new Set(request.visibilities)].sort(),
        platforms: [...new Set(request.platforms)].sort(),
        statuses: [...new Set(request.statuses)].sort(),
        searchTerm: request.searchTerm.trim(),
        namespaces: [...new Set(request.publicNamespaces)].sort(),
      };
      const size = pageSize('page_size', request.pageSize);
      // The caller's organizations are part of the fingerprint: a token cannot be replayed by another key.
      const member = memberOf(ctx.grants).sort();
      const fingerprint = PageTokens.fingerprint('ListRegistryItems', { filter, member });
      const cursor = tokens.read(fingerprint, request.pageToken);
      const after = cursor ? ([String(cursor.after[0]), String(cursor.after[1])] as const) : null;
      const { rows, more } = store.list(filter, member, after, size);
      const versions = request.includeVersions ? store.versionsOf(rows) : null;
      const last = rows.at(-1);
      return {
        items: rows.map((row) => store.toItem(row, false, versions?.get(row.id))),
        nextPageToken: more && last ? tokens.issue(fingerprint, { after: [last.organization_id, last.name], returned: (cursor?.returned ?? 0) + rows.length }) : '',
      };
    },

    async deleteRegistryItem(_request, ctx) {
      const target = registryTarget(ctx);
      // Parts whose config names it, kept on the row as configs change (migration 0016).
      const used = store.row(target.id).usage;
      if (used > 0) {
        throw new FleetError(
          status.FAILED_PRECONDITION,
          Reason.REGISTRY_ITEM_IN_USE,
          `${target.itemId} is used by the config of ${used} machine part${used === 1 ? '' : 's'}; remove it from their configs first`,
        );
      }
      store.delete(target.id);
      await files.dropItem(target.id);
      return {};
    },

    async createModule(request) {
      const row = store.create(request.orgId, request.name, PackageType.PACKAGE_TYPE_MODULE, new Date(now()));
      return { moduleId: wireId(row), url: store.pageUrl(row) };
    },

    async updateModule(request, ctx) {
      const target = registryTarget(ctx);
      const visibility = request.public ? Visibility.VISIBILITY_PUBLIC : Visibility.VISIBILITY_PRIVATE;
      if (needsNamespace(visibility) && target.namespace === '') throw namespaceRequired('module');
      const declared = apps('apps', request.apps);
      for (const [i, app] of declared.entries()) {
        const other = store.appOwner(target.orgId, app.name, target.id);
        if (other !== undefined) {
          throw new FleetError(status.ALREADY_EXISTS, Reason.APP_NAME_TAKEN, `module ${JSON.stringify(other)} of this organization already declares an app named ${JSON.stringify(app.name)}`, `apps[${i}].name`);
        }
      }
      store.updateManifest(
        target.id,
        {
          url: httpUrl('url', request.url),
          description: registryText('description', request.description),
          models: models('models', request.models),
          entrypoint: archivePath('entrypoint', request.entrypoint, true),
          visibility,
          apps: declared,
          firstRun: archivePath('first_run', request.firstRun, false),
        },
        new Date(now()),
      );
      return { url: store.pageUrl(store.row(target.id)) };
    },

    async getModule(_request, ctx) {
      return { module: store.toModule(store.row(registryTarget(ctx).id)) };
    },

    async listModules(request, ctx) {
      listedOrg(request.orgId, 'org_id', ctx.grants, PackageType.PACKAGE_TYPE_MODULE);
      const member = memberOf(ctx.grants).includes(request.orgId);
      const size = pageSize('page_size', request.pageSize);
      const fingerprint = PageTokens.fingerprint('ListModules', { orgId: request.orgId, member });
      const cursor = tokens.read(fingerprint, request.pageToken);
      const { rows, more } = store.modules(request.orgId, member, cursor ? String(cursor.after[0]) : null, size);
      const last = rows.at(-1);
      return {
        modules: rows.map((row) => store.toModule(row)),
        nextPageToken: more && last ? tokens.issue(fingerprint, { after: [last.name], returned: (cursor?.returned ?? 0) + rows.length }) : '',
      };
    },

    async getModuleFileUpload(request, ctx) {
      const target = registryTarget(ctx);
      const info = request.moduleFileInfo ?? { moduleId: '', version: '', platform: '' };
      const key = fileKey(target.id, info.version, info.platform);
      const row = store.row(target.id);
      // Twice at most: a stream may complete (and drop its .part) while the held size is read, and that "0" would be a lie.
      for (let look = 0; ; look++) {
        const file = store.fileOf(target.id, info.version, info.platform);
        if (file) {
          return { committedBytes: 0, complete: true, sizeBytes: file.size_bytes, sha256: file.sha256, url: store.fileUrl(row, info.version, info.platform), completing: false };
        }
        const still = uploading.get(key);
        const upload = store.upload(target.id, info.version, info.platform);
        if (still?.phase === 'completing') {
          // Never "0": a client reading that would start the file again from its first byte.
          return { committedBytes: still.size, expiresAt: upload && new Date(Date.parse(upload.updated_at) + UPLOAD_KEPT_MS), complete: false, sizeBytes: 0, sha256: '', url: '', completing: true };
        }
        if (!upload) return { committedBytes: 0, complete: false, sizeBytes: 0, sha256: '', url: '', completing: false };
        const held = await files.held(target.id, info.version, info.platform);
        if (look === 0 && held === 0 && (store.fileOf(target.id, info.version, info.platform) !== undefined || uploading.get(key)?.phase === 'completing')) continue;
        return { committedBytes: held, expiresAt: new Date(Date.parse(upload.updated_at) + UPLOAD_KEPT_MS), complete: false, sizeBytes: 0, sha256: '', url: '', completing: false };
      }
    },

    async uploadModuleFile(first, ctx, rest, signal) {
      const target = registryTarget(ctx);
      const info = (first.moduleFile as { value: { version: string; platform: string } }).value;
      const { version, platform } = info;
      const row = store.row(target.id);
      if (row.type === PackageType.PACKAGE_TYPE_MODULE && row.entrypoint === '') {
        throw new FleetError(status.FAILED_PRECONDITION, Reason.ENTRYPOINT_MISSING, `module ${target.itemId} has no entrypoint yet: set it with UpdateModule before uploading a file`);
      }
      const refuseExisting = () => {
        if (store.fileOf(target.id, version, platform)) {
          throw new FleetError(status.ALREADY_EXISTS, Reason.MODULE_FILE_EXISTS, `version ${version} of ${target.itemId} already has a file for ${platform}; uploaded files are immutable: upload a new version`);
        }
      };
      refuseExisting();
      const elsewhere = options.uploadsElsewhere?.() ?? null;
      if (elsewhere !== null) throw new FleetError(status.UNAVAILABLE, Reason.UPLOADS_ELSEWHERE, elsewhere);
      const key = fileKey(target.id, version, platform);
      const keyId = ctx.caller.keyId;
      admit(key, keyId);
      streams.enter(keyId);
      try {
        const { entry, takeover, release } = await claim(key, keyId, target.itemId, version, platform, signal, refuseExisting);
        try {
          return await receive(first, target, row.id, version, platform, rest, AbortSignal.any([signal, takeover.signal]), takeover.signal, (size) => {
            entry.phase = 'completing';
            entry.size = size;
          });
        } finally {
          uploading.delete(key);
          release();
        }
      } finally {
        streams.leave(keyId);
      }
    },

    async getAppContent(request, ctx) {
      const found = visibleApp(request.publicNamespace, request.name, ctx);
      const first = found.files[0];
      return {
        content: {
          blobPath: first ? store.fileUrl(found.row, found.version, first) : '',
          entrypoint: found.app.entrypoint,
          appType: found.app.type,
          public: found.row.visibility !== Visibility.VISIBILITY_PRIVATE,
          moduleId: wireId(found.row),
          version: found.version,
        },
      };
    },

    async getAppBranding(request, ctx) {
      const { app } = visibleApp(request.publicNamespace, request.name, ctx);
      return { branding: { logoPath: app.logoPath, textCustomizations: app.customizations, fragmentIds: app.fragmentIds } };
    },
  };

  /**
   * Refuse a stream over the bounds, before it holds anything. A stream that takes over a file its
   * own key is receiving (and nobody waits for yet) replaces that stream, so it is let in at the
   * key's bound: a client that resumes after a network break must not be locked out by its own dead
   * streams. Waiting on a completing file, or behind another waiter, replaces nothing and counts.
   */
  function admit(key: string, keyId: string): void {
    const older = uploading.get(key);
    const replaces = older !== undefined && older.keyId === keyId && older.phase === 'receiving' && older.waiters === 0;
    if (!replaces && (streams.ofKey.get(keyId) ?? 0) >= limits.perKey) {
      throw new FleetError(
        status.RESOURCE_EXHAUSTED,
        Reason.UPLOAD_LIMIT,
        `this API key has ${limits.perKey} uploads streaming already, the most one key may have at once: wait for one to finish (or cancel one), then upload this file`,
      );
    }
    if (streams.total >= limits.total) {
      throw new FleetError(status.RESOURCE_EXHAUSTED, Reason.UPLOAD_LIMIT, `the service is taking ${limits.total} uploads at once, the most it takes: try again in a moment`);
    }
  }

  /**
   * Make this stream the file's only one: a receiving stream that has it is taken over (it stops
   * and keeps what it wrote), a completing one is waited for (it is about to commit the file).
   * The check that nobody else has the file, the check that it is not committed, and the claim
   * happen in one synchronous step after the wait: two streams woken by the same release cannot
   * both proceed.
   */
  async function claim(key: string, keyId: string, itemId: string, version: string, platform: string, signal: AbortSignal, refuseExisting: () => void) {
    const older = uploading.get(key);
    if (older) {
      const completing = older.phase === 'completing';
      older.takeOver();
      older.waiters += 1;
      const outcome = await Promise.race([older.released.then(() => 'released' as const), delay(completing ? COMPLETION_WAIT_MS : TAKE_OVER_MS).then(() => 'late' as const), aborted(signal)]).finally(() => {
        older.waiters -= 1;
      });
      if (outcome === 'cancelled') throw new FleetError(status.CANCELLED, Reason.UPLOAD_IN_PROGRESS, 'the upload was cancelled before it began');
      if (outcome === 'late' || uploading.has(key)) {
        throw new FleetError(
          status.ABORTED,
          Reason.UPLOAD_IN_PROGRESS,
          completing
            ? `another stream is completing version ${version} of ${itemId} for ${platform}; ask GetModuleFileUpload in a moment whether the file is complete`
            : `another stream is uploading version ${version} of ${itemId} for ${platform} and did not stop; try again in a moment`,
        );
      }
      // The stream waited for may have committed the file.
      refuseExisting();
    }
    const takeover = new AbortController();
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const entry: Streaming = {
      keyId,
      phase: 'receiving',
      size: 0,
      waiters: 0,
      takeOver: () => {
        if (entry.phase === 'receiving') takeover.abort();
      },
      released,
    };
    uploading.set(key, entry);
    return { entry, takeover, release };
  }

  /** The app as its module's latest version declares it, if the caller sees that module. */
  function visibleApp(namespace: string, name: string, ctx: CallContext) {
    const found = store.app(namespace, name);
    const module = found && permissions.registryItem(wireId(found.row), 'module');
    if (!found || !module || !permissions.sees(ctx.grants, module)) throw notFound(Reason.APP_NOT_FOUND, 'app', `${namespace}/${name}`, 'name');
    const files = store.versions(found.row).find((v) => v.version === found.version)?.platforms ?? [];
    return { ...found, files };
  }

  /**
   * Write the stream's chunks after `write_offset` into the upload's `.part` file, then commit the
   * file. A stream cut off (cancelled, broken, taken over, idle) keeps what it wrote for a later
   * stream to continue; a stream refused for its contents (a chunk too large, the file over its
   * bound, a message out of sequence) or for a failed write removes only what it wrote itself: the
   * bytes earlier streams committed stay for a resume. `completing` is called the moment the client
   * half-closes, before anything else can run: from then on the stream cannot be taken over.
   */
  async function receive(
    first: UploadModuleFileRequest,
    target: RegistryTarget,
    itemId: string,
    version: string,
    platform: string,
    rest: AsyncIterable<UploadModuleFileRequest>,
    signal: AbortSignal,
    takenOver: AbortSignal,
    completing: (size: number) => void,
  ) {
    const offset = first.writeOffset;
    const clock = { started: performance.now(), waitMs: 0, writeMs: 0, syncMs: 0 };
    if (offset > 0) {
      const held = store.upload(itemId, version, platform) ? await files.held(itemId, version, platform) : 0;
      if (held !== offset) {
        throw new FleetError(
          status.FAILED_PRECONDITION,
          Reason.UPLOAD_OFFSET_MISMATCH,
          held === 0
            ? `the service holds nothing of this upload (it expired, or never started): upload the whole file from write_offset 0`
            : `the service holds ${held} bytes of this upload, not ${offset}: continue from write_offset ${held} (GetModuleFileUpload says so)`,
          'write_offset',
        );
      }
    }
    const started = new Date(now());
    store.saveUpload(itemId, version, platform, offset, started);
    let handle;
    try {
      handle = await files.openPart(itemId, version, platform, offset);
    } catch (e) {
      // Out of descriptors or disk, say: nothing of this stream was written.
      if (offset === 0) store.dropUpload(itemId, version, platform);
      throw e;
    }
    let size = offset;
    let refused: unknown = null;
    let idle = false;
    let touched = now();
    // The next message, or the end when the stream is cut off or taken over (a dead connection may never send another).
    const messages = rest[Symbol.asyncIterator]();
    const stopped = new Promise<IteratorResult<UploadModuleFileRequest>>((resolve) => {
      const end = () => resolve({ done: true, value: undefined });
      if (signal.aborted) end();
      else signal.addEventListener('abort', end, { once: true });
    });
    try {
      for (;;) {
        let timer: NodeJS.Timeout | undefined;
        const quiet = new Promise<IteratorResult<UploadModuleFileRequest>>((resolve) => {
          timer = setTimeout(() => {
            idle = true;
            resolve({ done: true, value: undefined });
          }, limits.idleMs);
        });
        const waiting = performance.now();
        const next = await Promise.race([messages.next(), stopped, quiet]).finally(() => clearTimeout(timer));
        clock.waitMs += performance.now() - waiting;
        if (next.done === true) {
          // Half-closed by the client (not cut off): the file is whole. Nothing may take it over from here.
          if (!signal.aborted && !idle) completing(size);
          break;
        }
        const message = next.value;
        if (message.moduleFile?.$case !== 'file') {
          throw invalidArgument('module_file_info', Reason.UPLOAD_SEQUENCE_INVALID, 'only the first message carries module_file_info; every later one carries a chunk of the file');
        }
        const chunk = message.moduleFile.value;
        if (chunk.length > MAX_CHUNK_BYTES) throw invalidArgument('file', Reason.CHUNK_TOO_LARGE, `a chunk is ${chunk.length} bytes; send chunks of at most ${MAX_CHUNK_BYTES} bytes (64 KiB is recommended)`);
        if (size + chunk.length > MAX_FILE_BYTES) throw invalidArgument('file', Reason.FILE_TOO_LARGE, `the file is over ${MAX_FILE_BYTES / 1024 / 1024} MiB, the largest a registry file may be`);
        const writing = performance.now();
        if (chunk.length > 0) await handle.write(chunk, 0, chunk.length, size);
        clock.writeMs += performance.now() - writing;
        size += chunk.length;
        if (now() - touched > touchMs) {
          touched = now();
          store.saveUpload(itemId, version, platform, size, new Date(touched));
        }
      }
    } catch (e) {
      refused = e;
    } finally {
      // A file about to be committed must be on disk: its sync failing refuses it. Kept bytes are kept as far as they got.
      const syncing = performance.now();
      const synced = await handle.sync().then(
        () => null,
        (e: unknown) => e,
      );
      clock.syncMs = performance.now() - syncing;
      if (synced !== null && refused === null && !signal.aborted && !idle) refused = synced;
      await handle.close();
    }
    // Deleted while it uploaded (DeleteRegistryItem dropped its bytes): nothing to keep or complete.
    if (store.find(itemId) === undefined) throw notFound(Reason.MODULE_NOT_FOUND, 'module', target.itemId, 'module_file_info.module_id');
    if (refused !== null && !signal.aborted) {
      // Refused (or a write failed): what this stream wrote goes; what earlier streams committed stays for a resume.
      if (offset === 0) {
        await files.dropPart(itemId, version, platform);
        store.dropUpload(itemId, version, platform);
      } else {
        await files.truncatePart(itemId, version, platform, offset);
        store.saveUpload(itemId, version, platform, offset, new Date(now()));
      }
      throw refused;
    }
    if (signal.aborted || idle) {
      // Cut off, taken over or idle: keep what arrived, for GetModuleFileUpload and a resumed stream.
      store.saveUpload(itemId, version, platform, size, new Date(now()));
      if (takenOver.aborted) throw new FleetError(status.ABORTED, Reason.UPLOAD_IN_PROGRESS, 'a newer stream of the same file took this upload over');
      if (idle) {
        throw new FleetError(
          status.ABORTED,
          Reason.UPLOAD_IDLE,
          `no chunk arrived for ${limits.idleMs / 1000} s, so the stream was ended; the ${size} bytes received are kept: resume from write_offset ${size} (GetModuleFileUpload says so)`,
        );
      }
      throw new FleetError(status.CANCELLED, Reason.UPLOAD_IN_PROGRESS, 'the upload was cancelled; what arrived is kept for a resumed upload');
    }
    if (size === 0) {
      await files.dropPart(itemId, version, platform);
      store.dropUpload(itemId, version, platform);
      throw invalidArgument('file', Reason.FILE_EMPTY, 'the upload ended without a byte of file: send the file in chunks after module_file_info');
    }
    const committing = performance.now();
    const answer = await commit(target, itemId, version, platform, size);
    const done = performance.now();
    reportTiming?.({ bytes: size - offset, totalMs: done - clock.started, waitMs: clock.waitMs, writeMs: clock.writeMs, syncMs: clock.syncMs, commitMs: done - committing });
    return answer;
  }

  /**
   * Hash the whole `.part`, place it as the file and record it. Runs with the file's stream in
   * `completing`, so no other stream touches the `.part` or the file meanwhile; and placing never
   * replaces a file that is there, so even a bug elsewhere could not make a stream overwrite a
   * committed file. A failure removes only what this completion placed.
   */
  async function commit(target: RegistryTarget, itemId: string, version: string, platform: string, size: number) {
    const gone = () => notFound(Reason.MODULE_NOT_FOUND, 'module', target.itemId, 'module_file_info.module_id');
    let sha256: string;
    try {
      sha256 = await files.sha256(files.partPath(itemId, version, platform));
    } catch (e) {
      // DeleteRegistryItem took the bytes while they were hashed.
      if (store.find(itemId) === undefined) throw gone();
      throw e;
    }
    // The item may have been deleted while the file was uploading.
    const row = store.find(itemId);
    if (row === undefined) {
      await files.dropPart(itemId, version, platform);
      throw gone();
    }
    const exists = () => new FleetError(status.ALREADY_EXISTS, Reason.MODULE_FILE_EXISTS, `version ${version} of ${target.itemId} already has a file for ${platform}`);
    if (store.fileOf(itemId, version, platform)) {
      await files.dropPart(itemId, version, platform);
      store.dropUpload(itemId, version, platform);
      throw exists();
    }
    if (!(await files.place(itemId, version, platform))) {
      // A file with no row: left by a crash between placing and recording. It was never listed; this upload takes its place.
      await files.dropFile(itemId, version, platform);
      if (!(await files.place(itemId, version, platform))) throw new Error(`${files.path(itemId, version, platform)} came back while it was being replaced`);
    }
    try {
      store.addFile(row, version, platform, size, sha256, new Date(now()));
    } catch (e) {
      // Only the link this completion placed goes; the `.part` and its upload row stay for a resume.
      if (await files.placedFromPart(itemId, version, platform)) await files.dropFile(itemId, version, platform);
      if (e instanceof Error && /UNIQUE|PRIMARY/.test(e.message)) {
        await files.dropPart(itemId, version, platform);
        store.dropUpload(itemId, version, platform);
        throw exists();
      }
      throw e;
    }
    // The file has its own link to the bytes now.
    await files.dropPart(itemId, version, platform);
    return { url: store.fileUrl(row, version, platform), sha256, sizeBytes: size };
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** Resolves 'cancelled' once `signal` aborts (never, if it does not). */
function aborted(signal: AbortSignal): Promise<'cancelled'> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve('cancelled');
    else signal.addEventListener('abort', () => resolve('cancelled'), { once: true });
  });
}

/**
 * Forget interrupted uploads nobody continued for {@link UPLOAD_KEPT_MS}, and `.part` files no
 * upload names; never the bytes of a stream under way (`streams`), however old its row looks. An
 * expired upload's file that a crash left placed but unrecorded goes with it.
 */
export async function sweepUploads(store: RegistryStore, files: RegistryFiles, streams: UploadStreams, nowMs = Date.now()): Promise<number> {
  const expired = store.uploadsBefore(new Date(nowMs - UPLOAD_KEPT_MS).toISOString()).filter((u) => !streams.busy(u.item_id, u.version, u.platform));
  for (const u of expired) {
    store.dropUpload(u.item_id, u.version, u.platform);
    await files.dropPart(u.item_id, u.version, u.platform);
    if (store.fileOf(u.item_id, u.version, u.platform) === undefined && !streams.busy(u.item_id, u.version, u.platform)) await files.dropFile(u.item_id, u.version, u.platform);
  }
  return expired.length + (await files.dropStrays(store.uploads(), () => streams.files()));
}
