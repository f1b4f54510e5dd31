// The permission model (docs/PROTOCOL.md section 10) for every operation of the fleet, with every
// kind of caller: organization owner and operator, location owner and operator (on the location the
// call is about, or its parent), machine operator, a key of another organization, and no token.
// The expectations are written here from the protocol's rules, not read from the domains' rules.ts,
// so a wrong row in the table fails this test.
import { credentials, Metadata, status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appCall, call, createKeyWithOrg, bearer, ownerMetadata, scopedKey, startTestService, tokenFor, uploadFile, type TestService } from './helpers';
import * as trainingMessages from '../../proto/gen/fleet/mltraining/v1/ml_training';
import { MLTrainingServiceClient, ModelType, type MLTrainingServiceService } from '../../proto/gen/fleet/mltraining/v1/ml_training';
import { TrainingStore } from '../../service/training/store';
import { ApiKeyStore } from '../../service/access/keys';
import { UserStore } from '../../service/access/users';
import { AppType } from '../../proto/gen/fleet/app/v1/apps';
import { PackageType, Visibility } from '../../proto/gen/fleet/app/v1/registry';
import { FragmentVisibility } from '../../proto/gen/fleet/app/v1/fragments';
import type { AppServiceClient } from '../../proto/gen/fleet/app/v1/app';
import { appRules, trainingRules } from '../../service/server';

type Identity = 'organization owner' | 'organization operator' | 'location owner' | 'location operator' | 'machine operator' | 'another organization' | 'no token';
/**
 * `registry`: a private item, module or fragment of the organization (roles on the organization; others do not see it).
 * `anyOwner`: owner on any organization (GetUserIDByEmail): another organization's owner too.
 */
type Level = 'none' | 'organization' | 'location' | 'robot' | 'registry' | 'anyOwner';
type Need = 'authenticated' | 'sees' | 'operator' | 'owner';

interface World {
  readonly orgId: string;
  /** A top-level location with an empty child, and a machine. */
  readonly locationId: string;
  readonly childId: string;
  readonly robotId: string;
  /** The machine's main part and a second one. */
  readonly mainPartId: string;
  readonly mainPartName: string;
  readonly otherPartId: string;
  /** An organization the location is shared with, and one it is not. */
  readonly sharedWith: string;
  readonly partner: string;
  /** The organization's public namespace; a private module with one uploaded version serving an app, and a private training script. */
  readonly namespace: string;
  readonly moduleId: string;
  readonly appName: string;
  readonly scriptId: string;
  /** Training jobs of the organization: one PENDING, one CANCELED. */
  readonly pendingJobId: string;
  readonly canceledJobId: string;
  /** Fragments of the organization, none in use: a private one tagged "stable", and a public one. */
  readonly privateFragmentId: string;
  readonly publicFragmentId: string;
  /** A user holding operator on the location, and a pending invite (without mail) of organization operator. */
  readonly memberId: string;
  readonly memberEmail: string;
  readonly invitedEmail: string;
  /** A key of the organization (operator on the location), a secret of the location and one of the main part. */
  readonly keyId: string;
  readonly locationSecretId: string;
  readonly partSecretId: string;
}

interface Case {
  readonly method: keyof AppServiceClient | keyof typeof MLTrainingServiceService;
  readonly label?: string;
  readonly level: Level;
  readonly need: Need;
  readonly request: (w: World) => Record<string, unknown>;
  /** How to make the call when it is not unary (a client stream). */
  readonly call?: (w: World, md: Metadata) => Promise<unknown>;
}

const CASES: Case[] = [
  // Members, invites and roles (section 11, "Users and organizations", "Roles and permissions").
  { method: 'getUserIdByEmail', level: 'anyOwner', need: 'owner', request: (w) => ({ email: w.memberEmail }) },
  { method: 'listOrganizationMembers', level: 'organization', need: 'operator', request: (w) => ({ orgId: w.orgId }) },
  { method: 'createOrganizationInvite', level: 'organization', need: 'owner', request: (w) => ({ orgId: w.orgId, email: 'someone-new@example.com', sendEmailInvite: false }) },
  { method: 'updateOrganizationInviteAuthorizations', level: 'organization', need: 'owner', request: (w) => ({ orgId: w.orgId, email: w.invitedEmail, addAuthorizations: [{ roleId: 'owner', resourceType: 'robot', resourceId: w.robotId }] }) },
  { method: 'deleteOrganizationInvite', level: 'organization', need: 'owner', request: (w) => ({ orgId: w.orgId, email: w.invitedEmail }) },
  { method: 'resendOrganizationInvite', level: 'organization', need: 'owner', request: (w) => ({ orgId: w.orgId, email: w.invitedEmail }) },
  { method: 'deleteOrganizationMember', level: 'organization', need: 'owner', request: (w) => ({ orgId: w.orgId, userId: w.memberId }) },
  { method: 'addRole', level: 'organization', need: 'owner', request: (w) => ({ orgId: w.orgId, identityId: w.memberId, role: 'owner', resourceType: 'robot', resourceId: w.robotId }) },
  { method: 'removeRole', level: 'organization', need: 'owner', request: (w) => ({ orgId: w.orgId, identityId: w.memberId, role: 'operator', resourceType: 'location', resourceId: w.locationId }) },
  {
    method: 'changeRole',
    level: 'organization',
    need: 'owner',
    request: (w) => ({ organizationId: w.orgId, oldIdentityId: w.memberId, oldRole: 'operator', oldResourceType: 'location', oldResourceId: w.locationId, newIdentityId: w.memberId, newRole: 'owner', newResourceType: 'location', newResourceId: w.locationId }),
  },
  { method: 'listAuthorizations', level: 'organization', need: 'owner', request: (w) => ({ orgId: w.orgId }) },
  { method: 'checkPermissions', level: 'none', need: 'authenticated', request: (w) => ({ permissions: [{ resourceType: 'robot', resourceId: w.robotId, permissions: ['read_robot'] }] }) },
  { method: 'createOrganization', level: 'none', need: 'authenticated', request: () => ({ name: 'Made By Anyone' }) },
  { method: 'listOrganizations', level: 'none', need: 'authenticated', request: () => ({}) },
  { method: 'getOrganization', level: 'organization', need: 'sees', request: (w) => ({ orgId: w.orgId }) },
  { method: 'updateOrganization', level: 'organization', need: 'owner', request: (w) => ({ orgId: w.orgId, region: 'eu' }) },
  { method: 'deleteOrganization', level: 'organization', need: 'owner', request: (w) => ({ orgId: w.orgId }) },
  { method: 'getOrganizationNamespaceAvailability', level: 'none', need: 'authenticated', request: () => ({ publicNamespace: 'anything-free' }) },
  { method: 'getOrganizationsWithAccessToLocation', level: 'location', need: 'owner', request: (w) => ({ locationId: w.locationId }) },
  { method: 'listOrganizationsByUser', level: 'none', need: 'authenticated', request: () => ({ userId: 'user-1' }) },
  { method: 'getOrganizationMetadata', level: 'organization', need: 'operator', request: (w) => ({ orgId: w.orgId }) },
  { method: 'updateOrganizationMetadata', level: 'organization', need: 'owner', request: (w) => ({ orgId: w.orgId, metadata: { a: 1 } }) },
  { method: 'createLocation', label: 'createLocation at the top level', level: 'organization', need: 'owner', request: (w) => ({ orgId: w.orgId, name: 'New Top' }) },
  { method: 'createLocation', label: 'createLocation under the location', level: 'location', need: 'owner', request: (w) => ({ orgId: w.orgId, name: 'New Child', parentLocationId: w.locationId }) },
  { method: 'getLocation', level: 'location', need: 'operator', request: (w) => ({ locationId: w.locationId }) },
  { method: 'updateLocation', level: 'location', need: 'owner', request: (w) => ({ locationId: w.locationId, name: 'Renamed' }) },
  { method: 'deleteLocation', level: 'location', need: 'owner', request: (w) => ({ locationId: w.childId }) },
  { method: 'listLocations', level: 'organization', need: 'sees', request: (w) => ({ orgId: w.orgId }) },
  { method: 'shareLocation', level: 'location', need: 'owner', request: (w) => ({ organizationId: w.partner, locationId: w.locationId }) },
  { method: 'unshareLocation', level: 'location', need: 'owner', request: (w) => ({ organizationId: w.sharedWith, locationId: w.locationId }) },
  { method: 'getLocationMetadata', level: 'location', need: 'operator', request: (w) => ({ locationId: w.locationId }) },
  { method: 'updateLocationMetadata', level: 'location', need: 'owner', request: (w) => ({ locationId: w.locationId, metadata: {} }) },
  { method: 'getRobot', level: 'robot', need: 'operator', request: (w) => ({ robotId: w.robotId }) },
  { method: 'getRobotParts', level: 'robot', need: 'operator', request: (w) => ({ robotId: w.robotId }) },
  { method: 'getRobotPart', level: 'robot', need: 'operator', request: (w) => ({ robotPartId: w.mainPartId }) },
  { method: 'getRobotPartByNameAndLocation', level: 'robot', need: 'operator', request: (w) => ({ name: w.mainPartName, locationId: w.locationId }) },
  { method: 'newRobotPart', level: 'robot', need: 'owner', request: (w) => ({ robotId: w.robotId, partName: 'added-part' }) },
  { method: 'deleteRobotPart', level: 'robot', need: 'owner', request: (w) => ({ robotPartId: w.otherPartId }) },
  { method: 'markPartAsMain', level: 'robot', need: 'owner', request: (w) => ({ robotPartId: w.otherPartId }) },
  { method: 'markPartForRestart', level: 'robot', need: 'operator', request: (w) => ({ robotPartId: w.mainPartId }) },
  // write_robot, read_robot_history.
  { method: 'updateRobotPart', level: 'robot', need: 'owner', request: (w) => ({ robotPartId: w.mainPartId, name: w.mainPartName, robotConfigJson: '{"components": []}' }) },
  { method: 'getRobotPartHistory', level: 'robot', need: 'operator', request: (w) => ({ robotPartId: w.mainPartId }) },
  { method: 'listRobots', level: 'location', need: 'operator', request: (w) => ({ locationId: w.locationId }) },
  { method: 'newRobot', level: 'location', need: 'owner', request: (w) => ({ name: 'added-robot', locationId: w.locationId }) },
  { method: 'updateRobot', level: 'robot', need: 'owner', request: (w) => ({ robotId: w.robotId, name: 'renamed-robot', locationId: w.locationId }) },
  { method: 'deleteRobot', level: 'robot', need: 'owner', request: (w) => ({ robotId: w.robotId }) },
  { method: 'getRobotMetadata', level: 'robot', need: 'operator', request: (w) => ({ robotId: w.robotId }) },
  { method: 'updateRobotMetadata', level: 'robot', need: 'owner', request: (w) => ({ robotId: w.robotId, metadata: { b: 2 } }) },
  { method: 'getRobotPartMetadata', level: 'robot', need: 'operator', request: (w) => ({ robotPartId: w.mainPartId }) },
  // read_robot_logs: what an operator of the machine may do (the tail is let in, or refused before streaming).
  { method: 'getRobotPartLogs', level: 'robot', need: 'operator', request: (w) => ({ robotPartId: w.mainPartId }) },
  { method: 'tailRobotPartLogs', level: 'robot', need: 'operator', request: (w) => ({ robotPartId: w.mainPartId }) },
  { method: 'updateRobotPartMetadata', level: 'robot', need: 'owner', request: (w) => ({ robotPartId: w.mainPartId, metadata: { c: 3 } }) },
  { method: 'listMachineSummaries', level: 'organization', need: 'sees', request: (w) => ({ organizationId: w.orgId }) },
  // Location and part secrets: read_location_secret and read_robot_secret are owner permissions.
  { method: 'locationAuth', level: 'location', need: 'owner', request: (w) => ({ locationId: w.locationId }) },
  { method: 'createLocationSecret', level: 'location', need: 'owner', request: (w) => ({ locationId: w.locationId }) },
  { method: 'deleteLocationSecret', level: 'location', need: 'owner', request: (w) => ({ locationId: w.locationId, secretId: w.locationSecretId }) },
  { method: 'createRobotPartSecret', level: 'robot', need: 'owner', request: (w) => ({ robotPartId: w.mainPartId }) },
  { method: 'deleteRobotPartSecret', level: 'robot', need: 'owner', request: (w) => ({ robotPartId: w.mainPartId, secretId: w.partSecretId }) },
  // API keys: owner on the organization; on a key, owner on every organization it holds authorizations in (here: the world's).
  { method: 'createKey', level: 'organization', need: 'owner', request: (w) => ({ orgId: w.orgId, authorizations: [{ role: 'operator', resourceType: 'robot', resourceId: w.robotId }] }) },
  { method: 'listKeys', level: 'organization', need: 'owner', request: (w) => ({ orgId: w.orgId }) },
  { method: 'deleteKey', level: 'organization', need: 'owner', request: (w) => ({ id: w.keyId }) },
  { method: 'rotateKey', level: 'organization', need: 'owner', request: (w) => ({ id: w.keyId }) },
  { method: 'renameKey', level: 'organization', need: 'owner', request: (w) => ({ id: w.keyId, name: 'Renamed' }) },
  { method: 'createKeyFromExistingKeyAuthorizations', level: 'organization', need: 'owner', request: (w) => ({ id: w.keyId }) },
  { method: 'getRobotApiKeys', level: 'robot', need: 'owner', request: (w) => ({ robotId: w.robotId }) },
  // Fragments: read_fragment and write_fragment are the organization's (organization roles only); a public fragment is read by anyone signed in.
  { method: 'listFragments', level: 'organization', need: 'operator', request: (w) => ({ orgId: w.orgId }) },
  // read_robot_config: what the machine's configs use, private fragments of its organization included.
  { method: 'listMachineFragments', level: 'robot', need: 'operator', request: (w) => ({ machineId: w.robotId }) },
  { method: 'getFragment', label: 'getFragment of a private fragment', level: 'registry', need: 'sees', request: (w) => ({ fragmentId: w.privateFragmentId }) },
  { method: 'getFragment', label: 'getFragment of a public fragment', level: 'none', need: 'authenticated', request: (w) => ({ fragmentId: w.publicFragmentId }) },
  { method: 'createFragment', level: 'organization', need: 'owner', request: (w) => ({ orgId: w.orgId, name: 'New fragment' }) },
  { method: 'updateFragment', level: 'registry', need: 'owner', request: (w) => ({ fragmentId: w.privateFragmentId, name: 'Renamed fragment' }) },
  { method: 'deleteFragment', level: 'registry', need: 'owner', request: (w) => ({ fragmentId: w.privateFragmentId }) },
  { method: 'getFragmentHistory', level: 'registry', need: 'operator', request: (w) => ({ id: w.privateFragmentId }) },
  { method: 'setFragmentTag', level: 'registry', need: 'owner', request: (w) => ({ fragmentId: w.privateFragmentId, tag: 'canary' }) },
  { method: 'deleteFragmentTag', level: 'registry', need: 'owner', request: (w) => ({ fragmentId: w.privateFragmentId, tag: 'stable' }) },
  // Registry: roles on the owning organization; a private item is not seen without one.
  { method: 'getRegistryItem', level: 'registry', need: 'sees', request: (w) => ({ itemId: w.scriptId }) },
  { method: 'listRegistryItemVersions', level: 'registry', need: 'sees', request: (w) => ({ itemId: w.moduleId }) },
  { method: 'createRegistryItem', level: 'organization', need: 'owner', request: (w) => ({ organizationId: w.orgId, name: 'new-item', type: PackageType.PACKAGE_TYPE_ML_MODEL }) },
  { method: 'updateRegistryItem', level: 'registry', need: 'owner', request: (w) => ({ itemId: w.scriptId, type: PackageType.PACKAGE_TYPE_ML_TRAINING, visibility: Visibility.VISIBILITY_PRIVATE, description: 'x' }) },
  // Listings need only authentication, but an organization named must be seen (or show something public).
  { method: 'listRegistryItems', level: 'organization', need: 'sees', request: (w) => ({ organizationId: w.orgId }) },
  { method: 'deleteRegistryItem', level: 'registry', need: 'owner', request: (w) => ({ itemId: w.scriptId }) },
  { method: 'createModule', level: 'organization', need: 'owner', request: (w) => ({ orgId: w.orgId, name: 'new-module' }) },
  { method: 'updateModule', level: 'registry', need: 'owner', request: (w) => ({ moduleId: w.moduleId, url: 'https://example.com', entrypoint: 'run' }) },
  {
    method: 'uploadModuleFile',
    level: 'registry',
    need: 'owner',
    request: () => ({}),
    call: (w, md) => uploadFile(t, { moduleId: w.moduleId, version: '2.0.0', platform: 'linux/any' }, [Buffer.from('bytes')], md),
  },
  { method: 'getModuleFileUpload', level: 'registry', need: 'owner', request: (w) => ({ moduleFileInfo: { moduleId: w.moduleId, version: '2.0.0', platform: 'linux/any' } }) },
  { method: 'getModule', level: 'registry', need: 'sees', request: (w) => ({ moduleId: w.moduleId }) },
  { method: 'listModules', level: 'organization', need: 'sees', request: (w) => ({ orgId: w.orgId }) },
  { method: 'getAppContent', level: 'registry', need: 'sees', request: (w) => ({ publicNamespace: w.namespace, name: w.appName }) },
  { method: 'getAppBranding', level: 'registry', need: 'sees', request: (w) => ({ publicNamespace: w.namespace, name: w.appName }) },
  // ML training: owner on the organization (the job's), through an organization role only.
  ...(
    [
      ['submitTrainingJob', (w: World) => ({ orgId: w.orgId, datasetId: 'any-dataset', modelName: 'perm-model', modelVersion: '1', modelType: ModelType.MODEL_TYPE_OBJECT_DETECTION, tags: ['pallet'] })],
      ['submitCustomTrainingJob', (w: World) => ({ orgId: w.orgId, datasetId: 'any-dataset', registryItemId: w.scriptId, registryItemVersion: '1.0.0', modelName: 'perm-model', modelVersion: '2' })],
      ['getTrainingJob', (w: World) => ({ id: w.pendingJobId })],
      ['listTrainingJobs', (w: World) => ({ orgId: w.orgId })],
      ['cancelTrainingJob', (w: World) => ({ id: w.pendingJobId })],
      ['deleteCompletedTrainingJob', (w: World) => ({ id: w.canceledJobId })],
      ['listTrainingDatasets', (w: World) => ({ orgId: w.orgId })],
      ['listModelVersions', (w: World) => ({ orgId: w.orgId })],
    ] as const
  ).map(([method, request]): Case => ({ method, level: 'organization', need: 'owner', request, call: (w, md) => trainingCall(method, request(w), md) })),
];

let training: MLTrainingServiceClient;
const trainingTypes = trainingMessages as unknown as Record<string, { fromPartial(v: unknown): unknown }>;
function trainingCall(method: keyof typeof MLTrainingServiceService, request: Record<string, unknown>, md: Metadata): Promise<unknown> {
  const type = trainingTypes[`${method.charAt(0).toUpperCase()}${method.slice(1)}Request`]!;
  const bound = (training[method] as unknown as (...args: unknown[]) => unknown).bind(training) as Parameters<typeof call<unknown, unknown>>[0];
  return call(bound, type.fromPartial(request), md);
}

/** The role each in-organization caller holds on a resource of each level (section 10: what covers what). */
const COVERS: Record<'organization owner' | 'organization operator' | 'location owner' | 'location operator' | 'machine operator', Record<'organization' | 'location' | 'robot', 'owner' | 'operator' | null>> = {
  'organization owner': { organization: 'owner', location: 'owner', robot: 'owner' },
  'organization operator': { organization: 'operator', location: 'operator', robot: 'operator' },
  'location owner': { organization: null, location: 'owner', robot: 'owner' },
  'location operator': { organization: null, location: 'operator', robot: 'operator' },
  'machine operator': { organization: null, location: null, robot: 'operator' },
};

function expected(identity: Identity, c: Case): 'OK' | status {
  if (identity === 'no token') return status.UNAUTHENTICATED;
  if (c.level === 'registry') {
    // Only organization roles see a private item: everyone else is told it does not exist.
    if (identity === 'organization owner') return 'OK';
    if (identity === 'organization operator') return c.need === 'owner' ? status.PERMISSION_DENIED : 'OK';
    return status.NOT_FOUND;
  }
  if (c.level === 'anyOwner') return identity === 'organization owner' || identity === 'another organization' ? 'OK' : status.PERMISSION_DENIED;
  if (c.need === 'authenticated' || c.level === 'none') return 'OK';
  if (identity === 'another organization') return status.NOT_FOUND;
  // Every in-organization caller sees the organization, so a call needing only that goes through.
  if (c.need === 'sees') return 'OK';
  const role = COVERS[identity][c.level];
  if (role === null || (c.need === 'owner' && role !== 'owner')) return status.PERMISSION_DENIED;
  return 'OK';
}

const IDENTITIES: Identity[] = ['organization owner', 'organization operator', 'location owner', 'location operator', 'machine operator', 'another organization', 'no token'];

let t: TestService;
let owner: Metadata;
let other: Metadata;
let worlds = 0;
const runId = Date.now().toString(36);
beforeAll(async () => {
  t = await startTestService();
  owner = await ownerMetadata(t);
  const key = await createKeyWithOrg(t, 'Another Organization');
  other = bearer(await tokenFor(t, key.keyId, key.secret));
  training = new MLTrainingServiceClient(t.service.address, credentials.createInsecure());
});
afterAll(async () => {
  training.close();
  await t.stop();
});

/** A fresh organization with a location (and an empty child), a machine of two parts, and a share. */
async function world(): Promise<World> {
  worlds += 1;
  const orgId = (await appCall(t, 'createOrganization', { name: `World ${worlds}` }, owner)).organization!.id;
  const sharedWith = (await appCall(t, 'createOrganization', { name: `Shared ${worlds}` }, owner)).organization!.id;
  const partner = (await appCall(t, 'createOrganization', { name: `Partner ${worlds}` }, owner)).organization!.id;
  const locationId = (await appCall(t, 'createLocation', { orgId, name: 'Site' }, owner)).location!.id;
  const childId = (await appCall(t, 'createLocation', { orgId, name: 'Empty', parentLocationId: locationId }, owner)).location!.id;
  const robotId = (await appCall(t, 'newRobot', { name: `bot-${worlds}`, locationId }, owner)).id;
  const otherPartId = (await appCall(t, 'newRobotPart', { robotId, partName: `bot-${worlds}-cam` }, owner)).partId;
  await appCall(t, 'shareLocation', { organizationId: sharedWith, locationId }, owner);
  const main = (await appCall(t, 'getRobotParts', { robotId }, owner)).parts[0]!;
  const namespace = `world-${worlds}-${runId}`;
  await appCall(t, 'updateOrganization', { orgId, publicNamespace: namespace }, owner);
  const { moduleId } = await appCall(t, 'createModule', { orgId, name: 'driver' }, owner);
  const appName = 'panel';
  await appCall(t, 'updateModule', { moduleId, url: 'https://example.com/driver', entrypoint: 'run', apps: [{ name: appName, type: AppType.APP_TYPE_SINGLE_MACHINE, entrypoint: 'index.html', logoPath: '', customizations: {}, fragmentIds: [] }] }, owner);
  await uploadFile(t, { moduleId, version: '1.0.0', platform: 'linux/any' }, [Buffer.from('v1')], owner);
  await appCall(t, 'createRegistryItem', { organizationId: orgId, name: 'trainer', type: PackageType.PACKAGE_TYPE_ML_TRAINING }, owner);
  const jobs = new TrainingStore(t.db());
  const job = (version: string) => jobs.submit({ orgId, datasetId: 'any-dataset', modelName: 'world-model', modelVersion: version, modelType: ModelType.MODEL_TYPE_OBJECT_DETECTION, tags: ['pallet'] }, Date.now());
  const pendingJobId = job('1');
  const canceledJobId = job('2');
  t.db().prepare('UPDATE training_jobs SET status = 6 WHERE id = ?').run(canceledJobId);
  const privateFragmentId = (await appCall(t, 'createFragment', { orgId, name: 'Private base' }, owner)).fragment!.id;
  await appCall(t, 'setFragmentTag', { fragmentId: privateFragmentId, tag: 'stable' }, owner);
  const publicFragmentId = (await appCall(t, 'createFragment', { orgId, name: 'Public base', visibility: FragmentVisibility.FRAGMENT_VISIBILITY_PUBLIC }, owner)).fragment!.id;
  const memberEmail = `member-${worlds}-${runId}@example.com`;
  const memberId = new UserStore(t.db(), new ApiKeyStore(t.db())).create(memberEmail, 'Member').id;
  await appCall(t, 'addRole', { orgId, identityId: memberId, role: 'operator', resourceType: 'location', resourceId: locationId }, owner);
  const invitedEmail = `invited-${worlds}-${runId}@example.com`;
  await appCall(t, 'createOrganizationInvite', { orgId, email: invitedEmail, sendEmailInvite: false, authorizations: [{ roleId: 'operator', resourceType: 'organization', resourceId: orgId }] }, owner);
  const keyId = (await appCall(t, 'createKey', { orgId, authorizations: [{ role: 'operator', resourceType: 'location', resourceId: locationId }] }, owner)).id;
  const locationSecretId = (await appCall(t, 'locationAuth', { locationId }, owner)).auth!.secrets[0]!.id;
  const partSecretId = main.secrets[0]!.id;
  return {
    memberId,
    memberEmail,
    invitedEmail,
    keyId,
    locationSecretId,
    partSecretId,
    orgId,
    locationId,
    childId,
    robotId,
    mainPartId: main.id,
    mainPartName: main.name,
    otherPartId,
    sharedWith,
    partner,
    namespace,
    moduleId,
    appName,
    scriptId: `${namespace}:trainer`,
    pendingJobId,
    canceledJobId,
    privateFragmentId,
    publicFragmentId,
  };
}

async function metadataFor(identity: Identity, w: World): Promise<Metadata> {
  const grant = (resourceType: 'organization' | 'location' | 'robot', resourceId: string, role: 'owner' | 'operator') =>
    scopedKey(t, [{ resourceType, resourceId, role, organizationId: w.orgId }]).then((k) => k.metadata);
  switch (identity) {
    case 'organization owner':
      return grant('organization', w.orgId, 'owner');
    case 'organization operator':
      return grant('organization', w.orgId, 'operator');
    case 'location owner':
      return grant('location', w.locationId, 'owner');
    case 'location operator':
      return grant('location', w.locationId, 'operator');
    case 'machine operator':
      return grant('robot', w.robotId, 'operator');
    case 'another organization':
      return other;
    case 'no token':
      return new Metadata();
  }
}

/**
 * A call that changes nothing, whoever makes it (by the protocol's naming: Get…, List…, Tail…,
 * Check…; the service's handler of each one used here was read to confirm it writes nothing — a
 * check of the database around each call is not possible here: the service writes in the background,
 * e.g. as its training runner starts a world's pending job).
 */
const reads = (c: Case) => /^(get|list|tail|check)[A-Z]/.test(c.method);

// A world is ~25 calls, and each test used to build its own (most of this file's minute). A call that
// changes nothing cannot disturb another test, nor can a call refused as it should be; a call that may
// change the world gets a fresh one. A refusal that wrongly went through fails its own test first.
let readWorld: Promise<World> | undefined;
const refusedWorlds = new Map<Case, Promise<World>>();
function worldFor(c: Case, identity: Identity): Promise<World> {
  if (reads(c)) return (readWorld ??= world());
  if (expected(identity, c) === 'OK') return world();
  let shared = refusedWorlds.get(c);
  if (shared === undefined) refusedWorlds.set(c, (shared = world()));
  return shared;
}

describe.each(CASES.map((c) => [c.label ?? c.method, c] as const))('%s', (_label, c) => {
  it.each(IDENTITIES)('as %s', async (identity) => {
    const w = await worldFor(c, identity);
    const md = await metadataFor(identity, w);
    const want = expected(identity, c);
    const outcome = await (c.call ? c.call(w, md) : appCall(t, c.method as 'getRobot', c.request(w) as never, md)).then(
      () => 'OK' as const,
      (e: { code: status; details: string }) => e,
    );
    if (want === 'OK') {
      expect(outcome, `${c.method} as ${identity}`).toBe('OK');
    } else {
      expect(outcome, `${c.method} as ${identity}`).not.toBe('OK');
      expect({ code: (outcome as { code: status }).code }).toEqual({ code: want });
      // A denial says which role is missing; a NOT_FOUND never admits that the resource exists.
      if (want === status.PERMISSION_DENIED) expect((outcome as { details: string }).details).toMatch(/needs (owner|operator) on|owner on its organization/);
    }
  });
});

it('covers the 38 operations of the fleet, the two of logs, the fourteen of the registry, the nine of fragments, the twelve of people, the twelve of keys and secrets and the eight of ML training, which are every operation in the permission tables', () => {
  const covered = new Set<string>(CASES.map((c) => c.method));
  expect(covered.size).toBe(95);
  expect([...covered].filter((m) => m in appRules).sort()).toEqual(Object.keys(appRules).sort());
  expect([...covered].filter((m) => m in trainingRules).sort()).toEqual(Object.keys(trainingRules).sort());
  expect(Object.keys(appRules)).toHaveLength(87);
});
