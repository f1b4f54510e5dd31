/**
 * Every bridge channel's name, in a module that imports nothing at run time. The bridge checks a
 * name before it sends a call (common/bridge.ts), and the bridge loads on the window's boot path —
 * in the sandboxed preload and in the page — where the schemas of `requestSchemas` (zod and every
 * domain's request types, ~100 KB of code built at load) would be loaded only to read their keys.
 * The list is checked against `requestSchemas` by the compiler, both ways: a channel added there
 * and not here (or the reverse) fails to build.
 */
import type { ChannelName } from './channels';

/** The channels, as `requestSchemas` orders them (by domain). */
export const channelNames = Object.freeze([
  'profiles.list', 'profiles.add', 'profiles.switch', 'profiles.remove', 'profiles.setKey',
  'connection.get', 'connection.retry',
  'localService.get', 'localService.start', 'localService.stop',
  'orgs.list', 'orgs.refresh', 'orgs.get', 'orgs.create', 'orgs.update', 'orgs.delete', 'orgs.namespaceAvailable',
  'orgs.withAccessToLocation', 'orgs.byUser', 'orgs.metadata', 'orgs.setMetadata',
  'locations.tree', 'locations.treeColumns', 'locations.treeParts', 'locations.get', 'locations.list',
  'locations.create', 'locations.update', 'locations.delete', 'locations.share', 'locations.unshare',
  'locations.metadata', 'locations.setMetadata',
  'machines.create', 'machines.get', 'machines.list', 'machines.update', 'machines.delete', 'machines.parts',
  'machines.part', 'machines.partByName', 'machines.createPart', 'machines.deletePart', 'machines.markMain',
  'machines.markRestart', 'machines.summaries', 'machines.watch', 'machines.metadata', 'machines.setMetadata',
  'machines.partMetadata', 'machines.setPartMetadata',
  'logs.open', 'logs.filter', 'logs.rows', 'logs.seek', 'logs.locate', 'logs.detail', 'logs.histogram', 'logs.older',
  'logs.close', 'logs.status', 'logs.search', 'logs.export', 'logs.retention', 'logs.setRetention',
  'registry.list', 'registry.get', 'registry.create', 'registry.update', 'registry.delete', 'registry.modules',
  'registry.versions', 'registry.module', 'registry.createModule', 'registry.updateModule', 'registry.appContent',
  'registry.appBranding', 'registry.pickFiles', 'registry.inspect', 'registry.upload', 'registry.uploads',
  'registry.cancelUpload', 'registry.retryUpload', 'registry.removeUpload', 'registry.discardStaged',
  'training.list', 'training.get', 'training.datasets', 'training.models', 'training.scripts', 'training.submit',
  'training.submitCustom', 'training.cancel', 'training.delete', 'training.watch', 'training.summary',
  'config.part', 'config.save', 'config.history', 'config.effective', 'config.machineFragments', 'config.saveDraft',
  'config.draft', 'config.dropDraft', 'config.drafts',
  'fragments.list', 'fragments.get', 'fragments.create', 'fragments.update', 'fragments.delete', 'fragments.history',
  'fragments.setTag', 'fragments.deleteTag', 'fragments.usage', 'fragments.saveDraft', 'fragments.draft',
  'fragments.dropDraft', 'fragments.drafts',
  'access.people', 'access.invite', 'access.updateInvite', 'access.resendInvite', 'access.deleteInvite',
  'access.removeMember', 'access.holders', 'access.addRole', 'access.changeRole', 'access.removeRole', 'access.keys',
  'access.machineKeys', 'access.createKey', 'access.rotateKey', 'access.renameKey', 'access.duplicateKey',
  'access.deleteKey', 'access.useKeyInProfile', 'access.locationSecrets', 'access.createLocationSecret',
  'access.deleteLocationSecret', 'access.partSecrets', 'access.createPartSecret', 'access.deletePartSecret',
  'access.revealSecret', 'access.permissions',
  'ui.get', 'ui.set', 'ui.restored',
] as const);

const known: ReadonlySet<string> = new Set(channelNames);

/** Whether `value` names a bridge channel: checked by the bridge before a call is sent and by main's router when it arrives. */
export function isChannelName(value: unknown): value is ChannelName {
  return typeof value === 'string' && known.has(value);
}

// The list and `requestSchemas` name the same channels: either side missing one fails here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _sameChannels: Same<ChannelName, (typeof channelNames)[number]> = true;
void _sameChannels;
