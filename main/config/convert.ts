/** Wire messages of part configs as the cache and the bridge hold them. */
import type { RobotPart, RobotPartHistoryEntry } from '../../proto/gen/fleet/app/v1/machines';
import type { Fragment as WireFragment } from '../../proto/gen/fleet/app/v1/fragments';
import type { ConfigDraft, MachineFragment, PartConfig, PartHistoryEntry } from '../../common/config';
import type { JsonObject } from '../../common/schemas';
import type { IsoTime } from '../../common/schemas';
import { AppError } from '../backend/errors';
import { editorFromWire } from '../backend/history';
import { revisionsFromWire, tagsFromWire, visibilityFromWire } from '../backend/wire';
import { iso } from '../fleet/convert';
import type { CachedPartConfig } from './cache';

/** A part's config as the cache keeps it: never its secrets, which RobotPart carries beside the config. */
export function cachedConfigFromWire(part: RobotPart, configJson: string, at: IsoTime): CachedPartConfig {
  const lastUpdated = iso(part.lastUpdated);
  // Every part has one from its creation on (docs/PROTOCOL.md); without it no save could be checked.
  if (lastUpdated === null) throw new AppError('internal', `The service answered part ${part.id} without last_updated, which a save needs to detect conflicts.`);
  return { partId: part.id, machineId: part.robotId, name: part.name, configJson, lastUpdated, syncedAt: at };
}

export function partConfigView(config: CachedPartConfig, fromCache: boolean, draft: ConfigDraft | null): PartConfig {
  return { partId: config.partId, machineId: config.machineId, name: config.name, configJson: config.configJson, lastUpdated: config.lastUpdated, fromCache, syncedAt: config.syncedAt, draft };
}

/**
 * A history entry as the bridge answers it: the part before the change, without its secrets. The
 * service answers a past config as a structure only, so its text is written out here (two-space
 * indentation, the service's key order).
 */
export function historyEntryFromWire(e: RobotPartHistoryEntry): PartHistoryEntry {
  const old = e.old;
  return {
    partId: e.partId,
    when: iso(e.when),
    editedBy: editorFromWire(e.editedBy),
    previous: {
      name: old?.name ?? '',
      configJson: JSON.stringify(old?.robotConfig ?? {}, null, 2),
      mainPart: old?.mainPart ?? false,
      markedForRestart: old?.markedForRestart ?? false,
      lastUpdated: iso(old?.lastUpdated),
    },
  };
}

/** A fragment of ListMachineFragments' answer (or GetFragment's), at the revision it holds. */
export function machineFragmentFromWire(f: WireFragment): MachineFragment {
  return {
    id: f.id,
    name: f.name,
    orgId: f.organizationId,
    orgName: f.organizationName,
    visibility: visibilityFromWire(f.visibility),
    revision: f.revision,
    config: (f.config ?? {}) as JsonObject,
    revisions: revisionsFromWire(f.revisions),
    tags: tagsFromWire(f.tags),
    partCount: f.robotPartCount,
  };
}
