/** Registry messages between the wire (generated protobuf types) and the bridge (common/registry.ts). */
import type { App as WireApp, AppBranding as WireAppBranding, AppContent as WireAppContent } from '../../proto/gen/fleet/app/v1/apps';
import { AppType as WireAppType } from '../../proto/gen/fleet/app/v1/apps';
import {
  PackageType as WirePackageType,
  RegistryItemStatus as WireStatus,
  Visibility as WireVisibility,
  type Module as WireModule,
  type ModuleVersion as WireModuleVersion,
  type RegistryItem as WireItem,
} from '../../proto/gen/fleet/app/v1/registry';
import type { AppBranding, AppContent, AppType, ItemStatus, Module, ModuleApp, ModuleVersion, PackageType, RegistryItem, Visibility } from '../../common/registry';

const iso = (d: Date | undefined): string | null => (d ? d.toISOString() : null);

const packageTypes: Record<PackageType, WirePackageType> = {
  module: WirePackageType.PACKAGE_TYPE_MODULE,
  ml_model: WirePackageType.PACKAGE_TYPE_ML_MODEL,
  ml_training: WirePackageType.PACKAGE_TYPE_ML_TRAINING,
  archive: WirePackageType.PACKAGE_TYPE_ARCHIVE,
};
const visibilities: Record<Visibility, WireVisibility> = {
  private: WireVisibility.VISIBILITY_PRIVATE,
  public: WireVisibility.VISIBILITY_PUBLIC,
  public_unlisted: WireVisibility.VISIBILITY_PUBLIC_UNLISTED,
};
const statuses: Record<ItemStatus, WireStatus> = {
  published: WireStatus.REGISTRY_ITEM_STATUS_PUBLISHED,
  in_development: WireStatus.REGISTRY_ITEM_STATUS_IN_DEVELOPMENT,
};
const appTypes: Record<AppType, WireAppType> = {
  single_machine: WireAppType.APP_TYPE_SINGLE_MACHINE,
  multi_machine: WireAppType.APP_TYPE_MULTI_MACHINE,
};

function reverse<K extends string, V>(map: Record<K, V>, value: V, fallback: K): K {
  for (const [k, v] of Object.entries(map) as [K, V][]) if (v === value) return k;
  return fallback;
}

export const packageTypeToWire = (t: PackageType): WirePackageType => packageTypes[t];
export const visibilityToWire = (v: Visibility): WireVisibility => visibilities[v];
export const statusToWire = (s: ItemStatus): WireStatus => statuses[s];
export const appTypeToWire = (t: AppType): WireAppType => appTypes[t];

// A value this build does not know (a newer service) is shown as the most cautious one.
const packageType = (t: WirePackageType): PackageType => reverse(packageTypes, t, 'archive');
const visibility = (v: WireVisibility): Visibility => reverse(visibilities, v, 'private');
const status = (s: WireStatus): ItemStatus => reverse(statuses, s, 'in_development');
const appType = (t: WireAppType): AppType => reverse(appTypes, t, 'single_machine');

export function itemFromWire(item: WireItem): RegistryItem {
  return {
    id: item.itemId,
    orgId: item.organizationId,
    publicNamespace: item.publicNamespace,
    name: item.name,
    type: packageType(item.type),
    visibility: visibility(item.visibility),
    status: status(item.status),
    description: item.description,
    url: item.url,
    platforms: [...item.platforms],
    markdown: item.markdownDocumentation ?? null,
    createdAt: iso(item.createdAt),
    updatedAt: iso(item.updatedAt),
    totalRobotUsage: item.totalRobotUsage,
  };
}

function appFromWire(app: WireApp): ModuleApp {
  return { name: app.name, type: appType(app.type), entrypoint: app.entrypoint, logoPath: app.logoPath, fragmentIds: [...app.fragmentIds] };
}

export function appToWire(app: ModuleApp): WireApp {
  // Text customizations are not edited in the app; UpdateModule replaces the manifest whole, so the
  // caller passes the module's current ones back (see registry.updateModule).
  return { name: app.name, type: appTypeToWire(app.type), entrypoint: app.entrypoint, logoPath: app.logoPath, customizations: {}, fragmentIds: [...app.fragmentIds] };
}

/** One uploaded version of any registry item (GetModule's versions, ListRegistryItemVersions). */
export function versionFromWire(v: WireModuleVersion): ModuleVersion {
  return {
    version: v.version,
    platforms: [...v.platforms],
    models: v.models.map((x) => ({ api: x.api, model: x.model })),
    entrypoint: v.entrypoint,
    uploadedAt: iso(v.uploadedAt),
    files: v.files.map((f) => ({ platform: f.platform, sizeBytes: f.sizeBytes, sha256: f.sha256, uploadedAt: iso(f.uploadedAt), url: f.url })),
  };
}

export function moduleFromWire(m: WireModule): Module {
  return {
    id: m.moduleId,
    name: m.name,
    orgId: m.organizationId,
    url: m.url,
    description: m.description,
    models: m.models.map((x) => ({ api: x.api, model: x.model })),
    entrypoint: m.entrypoint,
    visibility: visibility(m.visibility),
    versions: m.versions.map(versionFromWire),
    apps: m.apps.map(appFromWire),
    firstRun: m.firstRun,
    createdAt: iso(m.createdAt),
    updatedAt: iso(m.updatedAt),
  };
}

export function appContentFromWire(c: WireAppContent): AppContent {
  return { blobPath: c.blobPath, entrypoint: c.entrypoint, appType: appType(c.appType), public: c.public, moduleId: c.moduleId, version: c.version };
}

export function appBrandingFromWire(b: WireAppBranding): AppBranding {
  return {
    logoPath: b.logoPath,
    textCustomizations: Object.fromEntries(Object.entries(b.textCustomizations).map(([screen, o]) => [screen, { ...o.fields }])),
    fragmentIds: [...b.fragmentIds],
  };
}
