/**
 * The checks of a draft's version and platform: the schemas main applies (zod), loaded with the
 * first files a page is given rather than on the window's boot path, where the registry's page
 * state is (see `UploadingView`).
 */
import { modulePlatform, moduleVersion, type ModuleVersion } from '../../../../common/registry';
import { sentence } from '../../lib/format';
import type { UploadDraft } from './staging';

/**
 * What's wrong with a draft's version and platform, as sentences (the same schemas main checks).
 * `uploaded`: the item's versions as read (a module, or its versions alone); null while unread.
 */
export function draftErrors(
  draft: UploadDraft,
  drafts: readonly UploadDraft[],
  uploaded: { readonly versions: readonly ModuleVersion[] } | readonly ModuleVersion[] | null,
): { version: string | null; platform: string | null } {
  const version = moduleVersion.safeParse(draft.version);
  const platform = modulePlatform.safeParse(draft.platform);
  const out = {
    version: version.success ? null : sentence(version.error.issues[0]?.message ?? 'is not valid'),
    platform: platform.success ? null : sentence(platform.error.issues[0]?.message ?? 'is not valid'),
  };
  if (!version.success || !platform.success) return out;
  const same = (d: UploadDraft) => d.key !== draft.key && d.problem === null && d.version.trim() === version.data && d.platform.trim() === platform.data;
  if (drafts.some(same)) out.platform = `Another file is set to ${version.data} for ${platform.data} too.`;
  const versions = uploaded === null ? [] : 'versions' in uploaded ? uploaded.versions : uploaded;
  const existing = versions.find((v) => v.version === version.data)?.files.some((f) => f.platform === platform.data);
  if (existing) out.platform = `Version ${version.data} already has a file for ${platform.data}, and uploaded files never change: use a new version.`;
  return out;
}
