/**
 * The registry over the bridge: registry items (modules, ML models, training scripts, archives),
 * modules with their uploaded versions, app content and branding, and the queue of module file
 * uploads that main streams from disk (the bytes never pass through the renderer).
 *
 * Every read here needs the service (the registry is not cached for offline use: what an operator
 * does with it, publishing, needs the service anyway); a read offline answers `offline`.
 */
import { z } from 'zod';
import { id, type IsoTime } from './schemas';

/** What a registry item holds (PackageType). */
export const PACKAGE_TYPES = ['module', 'ml_model', 'ml_training', 'archive'] as const;
export type PackageType = (typeof PACKAGE_TYPES)[number];

/** Who can see an item (Visibility). Public ones need the organization's public namespace. */
export const VISIBILITIES = ['private', 'public', 'public_unlisted'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

/** Where an item is in its life (RegistryItemStatus): published once a file is uploaded. */
export const ITEM_STATUSES = ['published', 'in_development'] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];

/** The service's bound on one module file (docs/PROTOCOL.md section 8): checked before a byte is sent. */
export const MAX_MODULE_FILE_BYTES = 512 * 1024 * 1024;

/** A registry item name: lowercase letters, digits, `-` and `_`, starting with a letter or digit. */
export const itemName = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(200, 'is at most 200 characters')
  .regex(/^[a-z0-9][a-z0-9_-]*$/, 'may hold only lowercase letters, digits, - and _, and must start with a letter or digit');

/** `MAJOR.MINOR.PATCH`, as the service takes it (docs/PROTOCOL.md section 8). */
export const moduleVersion = z
  .string()
  .trim()
  .regex(/^(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})$/, 'must be a semantic version MAJOR.MINOR.PATCH such as 1.2.3');

/** `<os>/<arch>` or `<os>/any`, e.g. `linux/amd64`. */
export const modulePlatform = z
  .string()
  .trim()
  .regex(/^[a-z0-9]{1,32}\/[a-z0-9]{1,32}$/, 'must be <os>/<arch> or <os>/any in lowercase, e.g. linux/arm64');

export interface RegistryItem {
  /** `<public namespace>:<name>`, or `<organization id>:<name>` when the organization has no namespace. */
  readonly id: string;
  readonly orgId: string;
  readonly publicNamespace: string;
  readonly name: string;
  readonly type: PackageType;
  readonly visibility: Visibility;
  readonly status: ItemStatus;
  readonly description: string;
  readonly url: string;
  /** Platforms of the uploaded files of any version. */
  readonly platforms: readonly string[];
  /** Markdown documentation: only when asked for (`registry.get` with `markdown`), null when the item has none. */
  readonly markdown: string | null;
  readonly createdAt: IsoTime | null;
  readonly updatedAt: IsoTime | null;
  /** Machine parts whose config uses the item (modules only). */
  readonly totalRobotUsage: number;
}

export interface RegistryPage<T> {
  readonly items: readonly T[];
  /** Empty on the last page. */
  readonly nextPageToken: string;
}

/** A model (component or service implementation) a module provides. */
export interface ModuleModel {
  /** e.g. `rdk:component:motor` */
  readonly api: string;
  /** e.g. `acme:motors:stepper` */
  readonly model: string;
}

export const APP_TYPES = ['single_machine', 'multi_machine'] as const;
export type AppType = (typeof APP_TYPES)[number];

/** An app a module serves. */
export interface ModuleApp {
  readonly name: string;
  readonly type: AppType;
  /** Path of the entry HTML file inside the module file. */
  readonly entrypoint: string;
  /** Branding: logo URL, empty for none. */
  readonly logoPath: string;
  /** Branding: fragments a machine must use to be offered in the app. */
  readonly fragmentIds: readonly string[];
}

/** One uploaded file: a version's build for one platform. */
export interface ModuleFile {
  readonly platform: string;
  readonly sizeBytes: number;
  /** Lowercase hex. */
  readonly sha256: string;
  readonly uploadedAt: IsoTime | null;
  readonly url: string;
}

export interface ModuleVersion {
  readonly version: string;
  readonly platforms: readonly string[];
  readonly models: readonly ModuleModel[];
  readonly entrypoint: string;
  readonly uploadedAt: IsoTime | null;
  readonly files: readonly ModuleFile[];
}

export interface Module {
  readonly id: string;
  readonly name: string;
  readonly orgId: string;
  readonly url: string;
  readonly description: string;
  readonly models: readonly ModuleModel[];
  readonly entrypoint: string;
  readonly visibility: Visibility;
  /** Oldest first. */
  readonly versions: readonly ModuleVersion[];
  readonly apps: readonly ModuleApp[];
  /** Script run once after the module is first installed on a machine; empty: none. */
  readonly firstRun: string;
  readonly createdAt: IsoTime | null;
  readonly updatedAt: IsoTime | null;
}

export interface AppContent {
  /** Download URL of the module file the app is served from. */
  readonly blobPath: string;
  readonly entrypoint: string;
  readonly appType: AppType;
  readonly public: boolean;
  readonly moduleId: string;
  readonly version: string;
}

export interface AppBranding {
  readonly logoPath: string;
  /** Screen name → text key → replacement text. */
  readonly textCustomizations: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly fragmentIds: readonly string[];
}

/** Where an upload's bytes come from: a file on disk (Electron) or one the page handed the backend (browser mode). */
export const uploadSource = z.union([
  z.object({ path: z.string().min(1, 'must not be empty').max(4096, 'is too long') }).strict(),
  z.object({ stagedId: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/, 'is not a staged file') }).strict(),
]);
export type UploadSource = z.output<typeof uploadSource>;

/** What main found in a file before anything is sent (`registry.inspect`). */
export interface UploadCandidate {
  readonly source: UploadSource;
  readonly fileName: string;
  readonly sizeBytes: number;
  /** The file's SHA-256 (lowercase hex), to compare with what the service will record; null when it has a problem. */
  readonly sha256: string | null;
  /** Why the file cannot be uploaded as it is (not a gzipped tarball, too large, unreadable); null: it can. */
  readonly problem: string | null;
  /** From the archive's meta.json, where it has one. */
  readonly proposal: {
    readonly version: string | null;
    readonly platform: string | null;
    /** The module's name as meta.json gives it (`<namespace>:<name>`). */
    readonly moduleId: string | null;
    readonly entrypoint: string | null;
  };
}

export const UPLOAD_STATES = ['queued', 'uploading', 'waiting', 'done', 'failed', 'cancelled'] as const;
/**
 * - queued: waits its turn (uploads go one at a time, so each gets the link's full speed);
 * - uploading: bytes are on their way;
 * - waiting: the stream broke (service unreachable); it resumes by itself from what the service holds;
 * - done, failed, cancelled: ended (failed with `error`; retry starts it again, resuming).
 */
export type UploadState = (typeof UPLOAD_STATES)[number];

export interface Upload {
  readonly id: string;
  readonly moduleId: string;
  readonly version: string;
  readonly platform: string;
  readonly fileName: string;
  readonly sizeBytes: number;
  /** Bytes sent: what the service held when this attempt started, plus what the stream passed on to the network since. */
  readonly sentBytes: number;
  /** Where this attempt started: > 0 when it resumed what the service held. */
  readonly resumedFrom: number;
  readonly state: UploadState;
  /** Over the last seconds; null before there is a figure. */
  readonly bytesPerSecond: number | null;
  readonly secondsLeft: number | null;
  readonly error: { readonly kind: string; readonly message: string } | null;
  /** A finished upload: where the file is and what the service recorded. */
  readonly result: { readonly url: string; readonly sha256: string; readonly sizeBytes: number } | null;
  readonly createdAt: IsoTime;
  readonly finishedAt: IsoTime | null;
}

const types = z.array(z.enum(PACKAGE_TYPES)).max(PACKAGE_TYPES.length).default([]);
const visibilities = z.array(z.enum(VISIBILITIES)).max(VISIBILITIES.length).default([]);
const pageToken = z.string().max(1000, 'is too long').default('');
const pageSize = z.number().int().min(1).max(1000).default(50);
const url = z
  .string()
  .trim()
  .max(2000, 'is too long')
  .refine((s) => s === '' || /^https?:\/\/[^\s]+$/i.test(s), 'must be an http(s) URL');
const description = z.string().max(10_000, 'is too long').default('');
const model = z.object({ api: z.string().trim().min(1, 'needs an API'), model: z.string().trim().min(1, 'needs a model') }).strict();
const app = z
  .object({
    name: z.string().trim().regex(/^[a-z0-9][a-z0-9-]*$/, 'may hold only lowercase letters, digits and dashes'),
    type: z.enum(APP_TYPES),
    entrypoint: z.string().trim().min(1, 'needs an entry file'),
    logoPath: z.string().trim().max(2000).default(''),
    fragmentIds: z.array(id).max(100).default([]),
  })
  .strict();
const uploadId = z.string().regex(/^[A-Za-z0-9_-]{8,64}$/, 'is not an upload');

export const registryRequests = {
  /** A page of registry items (ListRegistryItems). An empty orgId lists across organizations: public items, plus what the key may see. */
  'registry.list': z
    .object({
      orgId: z.string().trim().max(200).default(''),
      types,
      visibilities,
      platforms: z.array(z.string().trim().min(1).max(100)).max(20).default([]),
      statuses: z.array(z.enum(ITEM_STATUSES)).max(ITEM_STATUSES.length).default([]),
      search: z.string().trim().max(200, 'is too long').default(''),
      pageToken,
      pageSize,
    })
    .strict(),
  /** One item; `markdown` asks for its documentation too. */
  'registry.get': z.object({ itemId: id, markdown: z.boolean().default(false) }).strict(),
  /** Create an item (a module is created with `registry.createModule`, which answers its id and url). */
  'registry.create': z.object({ orgId: id, name: itemName, type: z.enum(PACKAGE_TYPES) }).strict(),
  /** Change an item's description, visibility and url (its type never changes). */
  'registry.update': z.object({ itemId: id, type: z.enum(PACKAGE_TYPES), description, visibility: z.enum(VISIBILITIES), url: url.optional() }).strict(),
  /** Delete an item (a module with its versions and files). */
  'registry.delete': z.object({ itemId: id }).strict(),
  /** A page of an organization's modules (ListModules). */
  'registry.modules': z.object({ orgId: id, pageToken, pageSize }).strict(),
  /** The uploaded versions of any item (a module, an ML model, a training script, an archive) with their files, oldest first (ListRegistryItemVersions). */
  'registry.versions': z.object({ itemId: id }).strict(),
  /** One module with its versions and files. */
  'registry.module': z.object({ moduleId: id }).strict(),
  'registry.createModule': z.object({ orgId: id, name: itemName }).strict(),
  /** Replace the module's manifest as a whole (UpdateModule): every field is written. */
  'registry.updateModule': z
    .object({
      moduleId: id,
      url,
      description,
      models: z.array(model).max(500).default([]),
      entrypoint: z.string().trim().min(1, 'must not be blank').max(1000, 'is too long'),
      visibility: z.enum(['private', 'public']),
      apps: z.array(app).max(100).default([]),
      firstRun: z.string().trim().max(1000, 'is too long').default(''),
    })
    .strict(),
  'registry.appContent': z.object({ publicNamespace: id, name: id }).strict(),
  'registry.appBranding': z.object({ publicNamespace: id, name: id }).strict(),

  /**
   * Files to upload, chosen with main's open dialog (Electron). Answers the candidates, inspected as
   * `registry.inspect` does; null when there is no dialog (browser mode: the page's file picker and
   * the loopback upload endpoint instead).
   */
  'registry.pickFiles': z.object({}).strict(),
  /** Look into files before uploading: size, that a .tar.gz is one, and what its meta.json proposes. */
  'registry.inspect': z.object({ sources: z.array(uploadSource).min(1).max(50) }).strict(),
  /** Queue a file's upload as one module version's build for one platform. */
  'registry.upload': z.object({ moduleId: id, version: moduleVersion, platform: modulePlatform, source: uploadSource }).strict(),
  /** The upload queue (also pushed as `registry.uploads`). */
  'registry.uploads': z.object({}).strict(),
  /** Stop an upload; the service keeps what it received for a while, so a retry resumes. */
  'registry.cancelUpload': z.object({ uploadId }).strict(),
  /** Start a failed or cancelled upload again, from what the service holds. */
  'registry.retryUpload': z.object({ uploadId }).strict(),
  /** Forget an ended upload (its staged copy too). */
  'registry.removeUpload': z.object({ uploadId }).strict(),
  /** Browser mode: forget a staged file the user decided not to upload (one a queued upload uses is kept). */
  'registry.discardStaged': z.object({ stagedId: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/, 'is not a staged file') }).strict(),
};

export interface RegistryResponses {
  'registry.list': RegistryPage<RegistryItem>;
  'registry.get': RegistryItem;
  'registry.create': RegistryItem;
  'registry.update': RegistryItem;
  'registry.delete': null;
  'registry.modules': RegistryPage<Module>;
  'registry.versions': readonly ModuleVersion[];
  'registry.module': Module;
  'registry.createModule': { readonly moduleId: string; readonly url: string };
  'registry.updateModule': Module;
  'registry.appContent': AppContent;
  'registry.appBranding': AppBranding;
  'registry.pickFiles': readonly UploadCandidate[] | null;
  'registry.inspect': readonly UploadCandidate[];
  'registry.upload': Upload;
  'registry.uploads': readonly Upload[];
  'registry.cancelUpload': Upload;
  'registry.retryUpload': Upload;
  'registry.removeUpload': null;
  'registry.discardStaged': null;
}
