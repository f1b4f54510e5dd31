/** Wire fragments as the cache and the bridge hold them. */
import type { Fragment as WireFragment, FragmentHistoryEntry as WireHistoryEntry } from '../../proto/gen/fleet/app/v1/fragments';
import type { Fragment, FragmentHistoryEntry } from '../../common/fragments';
import type { JsonObject } from '../../common/schemas';
import { AppError } from '../backend/errors';
import { editorFromWire } from '../backend/history';
import { revisionsFromWire, tagsFromWire, visibilityFromWire } from '../backend/wire';
import { iso } from '../fleet/convert';

/** A fragment read from the service with the config of the revision it answered: what the cache keeps of one read. */
export interface FragmentRead {
  readonly fragment: Fragment;
  readonly revision: string;
  readonly config: JsonObject;
}

export function fragmentFromWire(f: WireFragment): Fragment {
  const lastUpdated = iso(f.lastUpdated);
  // Every fragment has one from its creation on; without it no update could be checked.
  if (lastUpdated === null) throw new AppError('internal', `The service answered fragment ${f.id} without last_updated, which an update needs to detect conflicts.`);
  return {
    id: f.id,
    name: f.name,
    orgId: f.organizationId,
    orgName: f.organizationName,
    visibility: visibilityFromWire(f.visibility),
    createdOn: iso(f.createdOn),
    lastUpdated,
    latestRevision: f.revisions.at(-1)?.revision ?? f.revision,
    revisions: revisionsFromWire(f.revisions),
    tags: tagsFromWire(f.tags),
    partCount: f.robotPartCount,
  };
}

/** A fragment answered by the service, with the config of the revision it holds. */
export function fragmentReadFromWire(f: WireFragment): FragmentRead {
  return { fragment: fragmentFromWire(f), revision: f.revision, config: (f.config ?? {}) as JsonObject };
}

/**
 * The service keeps a fragment's config as a structure, not as the text that was sent: the editor
 * gets it written out with two-space indentation, in the service's key order.
 */
export function configTextOf(config: JsonObject): string {
  return JSON.stringify(config, null, 2);
}

export function historyEntryFromWire(e: WireHistoryEntry): FragmentHistoryEntry {
  const old = e.old;
  return {
    fragmentId: e.fragmentId,
    revision: e.revision,
    editedOn: iso(e.editedOn),
    editedBy: editorFromWire(e.editedBy),
    previous: old === undefined ? null : { name: old.name, configJson: configTextOf((old.config ?? {}) as JsonObject), visibility: visibilityFromWire(old.visibility), lastUpdated: iso(old.lastUpdated) },
  };
}
