/**
 * Wire conversions more than one domain needs: a fragment's visibility, revisions and tags, which
 * the fragments domain shows and the config domain resolves machines' configs with.
 */
import { FragmentVisibility, type FragmentRevision as WireRevision, type FragmentTag as WireTag } from '../../proto/gen/fleet/app/v1/fragments';
import type { FragmentRevision, FragmentTag, FragmentVisibility as Visibility } from '../../common/config';
import { iso } from '../fleet/convert';

export function visibilityFromWire(v: FragmentVisibility): Visibility {
  return v === FragmentVisibility.FRAGMENT_VISIBILITY_PUBLIC ? 'public' : 'private';
}

export function visibilityToWire(v: Visibility): FragmentVisibility {
  return v === 'public' ? FragmentVisibility.FRAGMENT_VISIBILITY_PUBLIC : FragmentVisibility.FRAGMENT_VISIBILITY_PRIVATE;
}

export function revisionsFromWire(revisions: readonly WireRevision[]): FragmentRevision[] {
  return revisions.map((r) => ({ revision: r.revision, createdOn: iso(r.createdOn) }));
}

export function tagsFromWire(tags: readonly WireTag[]): FragmentTag[] {
  return tags.map((t) => ({ tag: t.tag, revision: t.revision, updatedOn: iso(t.updatedOn) }));
}
