/**
 * The registry's request-shape rules (docs/PROTOCOL.md sections 6, 8 and 11): item ids, names,
 * enum values, semantic versions, platforms, urls, a module's manifest. Each throws
 * INVALID_ARGUMENT naming the field; none looks anything up.
 */
import type { App } from '../../proto/gen/fleet/app/v1/apps';
import { AppType } from '../../proto/gen/fleet/app/v1/apps';
import { PackageType, RegistryItemStatus, Visibility, type Model } from '../../proto/gen/fleet/app/v1/registry';
import { invalidArgument, Reason } from '../errors';
import { MAX_NAME_LENGTH, requiredId } from '../validate';

/** Longest description, url, entrypoint or first-run script path. */
export const MAX_REGISTRY_TEXT = 4096;
/** Most models or apps one module declares. */
export const MAX_DECLARED = 200;

function enumValue<E extends number>(field: string, value: number, allowed: readonly E[], what: string): E {
  if (!allowed.includes(value as E)) throw invalidArgument(field, Reason.ENUM_VALUE_INVALID, `${field} must be ${what}${value === 0 ? ', not UNSPECIFIED' : ` (${value} is none of them)`}`);
  return value as E;
}

export const PACKAGE_TYPES = [PackageType.PACKAGE_TYPE_ARCHIVE, PackageType.PACKAGE_TYPE_MODULE, PackageType.PACKAGE_TYPE_ML_TRAINING, PackageType.PACKAGE_TYPE_ML_MODEL] as const;
export const VISIBILITIES = [Visibility.VISIBILITY_PRIVATE, Visibility.VISIBILITY_PUBLIC, Visibility.VISIBILITY_PUBLIC_UNLISTED] as const;
export const STATUSES = [RegistryItemStatus.REGISTRY_ITEM_STATUS_PUBLISHED, RegistryItemStatus.REGISTRY_ITEM_STATUS_IN_DEVELOPMENT] as const;

export const packageType = (field: string, value: number) => enumValue(field, value, PACKAGE_TYPES, 'a package type (ARCHIVE, MODULE, ML_TRAINING or ML_MODEL)');
export const visibility = (field: string, value: number) => enumValue(field, value, VISIBILITIES, 'a visibility (PRIVATE, PUBLIC or PUBLIC_UNLISTED)');
export const itemStatus = (field: string, value: number) => enumValue(field, value, STATUSES, 'a status (PUBLISHED or IN_DEVELOPMENT)');

const SEMVER = /^(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})$/;
/** A semantic version `MAJOR.MINOR.PATCH` (numbers without leading zeros). */
export function semanticVersion(field: string, value: string): string {
  if (value === '') throw invalidArgument(field, Reason.REQUIRED_FIELD_MISSING, `${field} is required`);
  if (!SEMVER.test(value)) throw invalidArgument(field, Reason.VERSION_INVALID, `${field} must be a semantic version MAJOR.MINOR.PATCH such as 1.4.0, not ${JSON.stringify(value.slice(0, 40))}`);
  return value;
}

const PLATFORM = /^[a-z0-9]{1,32}\/[a-z0-9]{1,32}$/;
/** A platform `<os>/<arch>` or `<os>/any`, lowercase (e.g. linux/arm64, darwin/any). */
export function platform(field: string, value: string): string {
  if (value === '') throw invalidArgument(field, Reason.REQUIRED_FIELD_MISSING, `${field} is required`);
  if (!PLATFORM.test(value)) throw invalidArgument(field, Reason.PLATFORM_INVALID, `${field} must be <os>/<arch> or <os>/any in lowercase, e.g. linux/arm64, not ${JSON.stringify(value.slice(0, 40))}`);
  return value;
}

/** An absolute http(s) URL; empty is allowed where `optional`. */
export function httpUrl(field: string, value: string, optional = true): string {
  if (value === '' && optional) return value;
  let ok: boolean;
  try {
    const url = new URL(value);
    ok = (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' && value.length <= MAX_REGISTRY_TEXT;
  } catch {
    ok = false;
  }
  if (!ok) throw invalidArgument(field, Reason.URL_INVALID, `${field} must be an absolute http(s) URL such as https://github.com/acme/lidar, not ${JSON.stringify(value.slice(0, 60))}`);
  return value;
}

/** Free text of a registry item (description): at most 4,096 characters, no control characters but newlines and tabs. */
export function registryText(field: string, value: string): string {
  if (value.length > MAX_REGISTRY_TEXT) throw invalidArgument(field, Reason.FIELD_TOO_LONG, `${field} must be at most ${MAX_REGISTRY_TEXT} characters`);
  if (/[^\P{Cc}\n\t\r]/u.test(value)) throw invalidArgument(field, Reason.FIELD_INVALID, `${field} must not contain control characters`);
  return value;
}

/** A relative path inside a module's archive (entrypoint, first-run script, logo): no control characters, not absolute, no `..`. */
export function archivePath(field: string, value: string, required: boolean): string {
  const path = value.trim();
  if (path === '') {
    if (required) throw invalidArgument(field, Reason.REQUIRED_FIELD_MISSING, `${field} is required and must not be blank`);
    return '';
  }
  if (path.length > MAX_REGISTRY_TEXT) throw invalidArgument(field, Reason.FIELD_TOO_LONG, `${field} must be at most ${MAX_REGISTRY_TEXT} characters`);
  if (/\p{Cc}/u.test(path) || path.startsWith('/') || path.split('/').includes('..')) {
    throw invalidArgument(field, Reason.FIELD_INVALID, `${field} must be a path inside the module's archive (relative, without "..")`);
  }
  return path;
}

/** Models a module provides: each with a non-empty api and model. */
export function models(field: string, values: readonly Model[]): Model[] {
  if (values.length > MAX_DECLARED) throw invalidArgument(field, Reason.FIELD_INVALID, `${field} may list at most ${MAX_DECLARED} models`);
  return values.map((m, i) => {
    for (const key of ['api', 'model'] as const) {
      const value = m[key].trim();
      if (value === '') throw invalidArgument(`${field}[${i}].${key}`, Reason.FIELD_INVALID, `${field}[${i}].${key} must not be empty`);
      if (value.length > MAX_NAME_LENGTH || /\p{Cc}/u.test(value)) throw invalidArgument(`${field}[${i}].${key}`, Reason.FIELD_INVALID, `${field}[${i}].${key} must be at most ${MAX_NAME_LENGTH} characters, without control characters`);
    }
    return { api: m.api.trim(), model: m.model.trim() };
  });
}

const APP_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
/** Apps a module serves: a name unique within the module ([a-z0-9-], 1–63), a type, an entrypoint. */
export function apps(field: string, values: readonly App[]): App[] {
  if (values.length > MAX_DECLARED) throw invalidArgument(field, Reason.FIELD_INVALID, `${field} may list at most ${MAX_DECLARED} apps`);
  const seen = new Set<string>();
  return values.map((app, i) => {
    const at = `${field}[${i}]`;
    if (!APP_NAME.test(app.name)) throw invalidArgument(`${at}.name`, Reason.FIELD_INVALID, `${at}.name must be 1 to 63 lowercase letters, digits and dashes, starting with a letter or digit`);
    if (seen.has(app.name)) throw invalidArgument(`${at}.name`, Reason.FIELD_INVALID, `${at}.name ${JSON.stringify(app.name)} is declared twice`);
    seen.add(app.name);
    enumValue(`${at}.type`, app.type, [AppType.APP_TYPE_SINGLE_MACHINE, AppType.APP_TYPE_MULTI_MACHINE], 'an app type (SINGLE_MACHINE or MULTI_MACHINE)');
    return {
      ...app,
      entrypoint: archivePath(`${at}.entrypoint`, app.entrypoint, true),
      logoPath: archivePath(`${at}.logo_path`, app.logoPath, false),
      fragmentIds: app.fragmentIds.map((id, j) => requiredId(`${at}.fragment_ids[${j}]`, id)),
    };
  });
}
