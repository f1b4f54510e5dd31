import { status } from '@grpc/grpc-js';
import type { AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import { PackageType, Visibility, type UploadModuleFileRequest } from '../../proto/gen/fleet/app/v1/registry';
import type { Access, Grant, RegistryTarget } from '../access/access';
import { FleetError, invalidArgument, Reason } from '../errors';
import { PageTokens, pageSize } from '../paging';
import type { CallContext, ClientStreamHandlers, UnaryHandlers } from '../rpc';
import { notFound } from '../validate';
import type { RegistryFiles } from './files';
import { apps, archivePath, httpUrl, models, registryText } from './validate';
import { wireId, type RegistryStore } from './store';

/** Largest chunk of an upload. */
export const MAX_CHUNK_BYTES = 1024 * 1024;
/** Largest module file (docs/PROTOCOL.md section 8). */
export const MAX_FILE_BYTES = 512 * 1024 * 1024;
/** How long a new stream of a file waits for the stream it takes over to stop. */
const TAKE_OVER_MS = 5_000;
/** How long the bytes of an interrupted upload are kept for a stream to continue them. */
export const UPLOAD_KEPT_MS = 24 * 60 * 60 * 1000;

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
}

/** AppService's registry calls. Permissions are checked by the rule table before these run. */
export function createRegistryHandlers(
  store: RegistryStore,
  files: RegistryFiles,
  access: Access,
  tokens: PageTokens,
  options: RegistryHandlerOptions,
): UnaryHandlers<typeof AppServiceService, CallContext> & ClientStreamHandlers<typeof AppServiceService, CallContext> {
  const now = options.now ?? Date.now;
  /**
   * Files being uploaded right now, one stream per file: a newer stream takes over (the older one
   * stops where it is and keeps what it wrote), as tus servers do. After a network break the
   * service may not notice for minutes that the old stream is dead; the client's resume must not
   * wait for that.
   */
  const uploading = new Map<string, { readonly takeOver: () => void; readonly released: Promise<void> }>();

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
      const { rows, platforms, more } = store.list(filter, member, after, size);
      const last = rows.at(-1);
      return {
        items: rows.map((row) => store.toItem(row, false, platforms.get(row.id))),
        nextPageToken: more && last ? tokens.issue(fingerprint, { after: [last.organization_id, last.name], returned: (cursor?.returned ?? 0) + rows.length }) : '',
      };
    },

    async deleteRegistryItem(_request, ctx) {
      const target = registryTarget(ctx);
      const row = store.row(target.id);
      const used = store.usage(row);
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
      const row = store.row(target.id);
      const file = store.fileOf(target.id, info.version, info.platform);
      if (file) {
        return { committedBytes: 0, complete: true, sizeBytes: file.size_bytes, sha256: file.sha256, url: store.fileUrl(row, info.version, info.platform) };
      }
      const upload = store.upload(target.id, info.version, info.platform);
      if (!upload) return { committedBytes: 0, complete: false, sizeBytes: 0, sha256: '', url: '' };
      return {
        committedBytes: await files.held(target.id, info.version, info.platform),
        expiresAt: new Date(Date.parse(upload.updated_at) + UPLOAD_KEPT_MS),
        complete: false,
        sizeBytes: 0,
        sha256: '',
        url: '',
      };
    },

    async uploadModuleFile(first, ctx, rest, signal) {
      const target = registryTarget(ctx);
      const info = (first.moduleFile as { value: { version: string; platform: string } }).value;
      const { version, platform } = info;
      const row = store.row(target.id);
      if (row.type === PackageType.PACKAGE_TYPE_MODULE && row.entrypoint === '') {
        throw new FleetError(status.FAILED_PRECONDITION, Reason.ENTRYPOINT_MISSING, `module ${target.itemId} has no entrypoint yet: set it with UpdateModule before uploading a file`);
      }
      if (store.fileOf(target.id, version, platform)) {
        throw new FleetError(status.ALREADY_EXISTS, Reason.MODULE_FILE_EXISTS, `version ${version} of ${target.itemId} already has a file for ${platform}; uploaded files are immutable: upload a new version`);
      }
      const key = `${target.id}\0${version}\0${platform}`;
      const older = uploading.get(key);
      if (older) {
        older.takeOver();
        const released = await Promise.race([older.released.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), TAKE_OVER_MS).unref())]);
        if (!released || uploading.has(key)) {
          throw new FleetError(status.ABORTED, Reason.UPLOAD_IN_PROGRESS, `another stream is uploading version ${version} of ${target.itemId} for ${platform} and did not stop; try again in a moment`);
        }
      }
      const takeover = new AbortController();
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => (release = resolve));
      uploading.set(key, { takeOver: () => takeover.abort(), released });
      try {
        return await receive(first, target, row.id, version, platform, rest, AbortSignal.any([signal, takeover.signal]), takeover.signal);
      } finally {
        uploading.delete(key);
        release();
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

  /** The app as its module's latest version declares it, if the caller sees that module. */
  function visibleApp(namespace: string, name: string, ctx: CallContext) {
    const found = store.app(namespace, name);
    const module = found && access.registryItem(wireId(found.row), 'module');
    if (!found || !module || !access.sees(ctx.grants, module)) throw notFound(Reason.APP_NOT_FOUND, 'app', `${namespace}/${name}`, 'name');
    const files = store.versions(found.row).find((v) => v.version === found.version)?.platforms ?? [];
    return { ...found, files };
  }

  /**
   * Write the stream's chunks after `write_offset` into the upload's `.part` file. A stream cut
   * off (cancelled, broken) keeps what it wrote for a later stream to continue; a stream refused
   * for its contents (a chunk too large, the file over its bound, a message out of sequence)
   * discards the upload, which cannot become valid by continuing it.
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
  ) {
    const offset = first.writeOffset;
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
    const handle = await files.openPart(itemId, version, platform, offset);
    let size = offset;
    let refused: unknown = null;
    // The next message, or the end when the stream is cut off or taken over (a dead connection may never send another).
    const messages = rest[Symbol.asyncIterator]();
    const stopped = new Promise<IteratorResult<UploadModuleFileRequest>>((resolve) => {
      const end = () => resolve({ done: true, value: undefined });
      if (signal.aborted) end();
      else signal.addEventListener('abort', end, { once: true });
    });
    try {
      for (;;) {
        const next = await Promise.race([messages.next(), stopped]);
        if (next.done === true) break;
        const message = next.value;
        if (message.moduleFile?.$case !== 'file') {
          throw invalidArgument('module_file_info', Reason.UPLOAD_SEQUENCE_INVALID, 'only the first message carries module_file_info; every later one carries a chunk of the file');
        }
        const chunk = message.moduleFile.value;
        if (chunk.length > MAX_CHUNK_BYTES) throw invalidArgument('file', Reason.CHUNK_TOO_LARGE, `a chunk is ${chunk.length} bytes; send chunks of at most ${MAX_CHUNK_BYTES} bytes (64 KiB is recommended)`);
        if (size + chunk.length > MAX_FILE_BYTES) throw invalidArgument('file', Reason.FILE_TOO_LARGE, `the file is over ${MAX_FILE_BYTES / 1024 / 1024} MiB, the largest a registry file may be`);
        if (chunk.length > 0) await handle.write(chunk, 0, chunk.length, size);
        size += chunk.length;
      }
    } catch (e) {
      refused = e;
    } finally {
      await handle.sync().catch(() => undefined);
      await handle.close();
    }
    if (refused !== null && !signal.aborted) {
      // The stream's contents were refused (or reading it failed): nothing of it can be continued.
      await files.dropPart(itemId, version, platform);
      store.dropUpload(itemId, version, platform);
      throw refused;
    }
    if (signal.aborted) {
      // Cut off or taken over: keep what arrived, for GetModuleFileUpload and a resumed stream.
      store.saveUpload(itemId, version, platform, size, new Date(now()));
      if (takenOver.aborted) throw new FleetError(status.ABORTED, Reason.UPLOAD_IN_PROGRESS, 'a newer stream of the same file took this upload over');
      throw new FleetError(status.CANCELLED, Reason.UPLOAD_IN_PROGRESS, 'the upload was cancelled; what arrived is kept for a resumed upload');
    }
    if (size === 0) {
      await files.dropPart(itemId, version, platform);
      store.dropUpload(itemId, version, platform);
      throw invalidArgument('file', Reason.FILE_EMPTY, 'the upload ended without a byte of file: send the file in chunks after module_file_info');
    }
    const path = await files.complete(itemId, version, platform);
    const sha256 = await files.sha256(path);
    // The item may have been deleted while the file was uploading.
    const row = store.find(itemId);
    if (row === undefined) {
      await files.dropFile(itemId, version, platform);
      throw notFound(Reason.MODULE_NOT_FOUND, 'module', target.itemId, 'module_file_info.module_id');
    }
    try {
      store.addFile(row, version, platform, size, sha256, new Date(now()));
    } catch (e) {
      await files.dropFile(itemId, version, platform);
      if (e instanceof Error && /UNIQUE|PRIMARY/.test(e.message)) throw new FleetError(status.ALREADY_EXISTS, Reason.MODULE_FILE_EXISTS, `version ${version} of ${target.itemId} already has a file for ${platform}`);
      throw e;
    }
    return { url: store.fileUrl(row, version, platform), sha256, sizeBytes: size };
  }
}

/** Forget interrupted uploads nobody continued for {@link UPLOAD_KEPT_MS}, and `.part` files no upload names. */
export async function sweepUploads(store: RegistryStore, files: RegistryFiles, nowMs = Date.now()): Promise<number> {
  const expired = store.expireUploads(new Date(nowMs - UPLOAD_KEPT_MS).toISOString());
  await Promise.all(expired.map((u) => files.dropPart(u.item_id, u.version, u.platform)));
  return expired.length + (await files.dropStrays(store.uploads()));
}
