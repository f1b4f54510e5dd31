// The permission matrix: EVERY operation of every service of the contract (read from the generated
// service definitions, so a new RPC without a row fails this test) × owner and operator on an
// organization, a location and a machine × a key of another organization × no token, each key made
// with CreateKey. The expectation comes from docs/PROTOCOL.md section 10 (written here, not read
// from the rules.ts tables): allowed, PERMISSION_DENIED (seen without the role), NOT_FOUND (not
// seen), UNAUTHENTICATED. A row of an operation not implemented yet is marked `pending`: it answers
// UNIMPLEMENTED to every signed-in caller, and the row's own expectation applies once it lands (the
// first test says which rows to flip).
//
// Fast: one service; one small world per identity (so that what an allowed caller deletes is its
// own); every identity's calls in parallel, then the few that end a world, in order.
import { credentials, Metadata, status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import { AppType } from '../../proto/gen/fleet/app/v1/apps';
import { FragmentVisibility } from '../../proto/gen/fleet/app/v1/fragments';
import { PackageType, Visibility } from '../../proto/gen/fleet/app/v1/registry';
import { AuthServiceService } from '../../proto/gen/fleet/auth/v1/auth';
import * as trainingMessages from '../../proto/gen/fleet/mltraining/v1/ml_training';
import { MLTrainingServiceClient, MLTrainingServiceService, ModelType } from '../../proto/gen/fleet/mltraining/v1/ml_training';
import { appRules, trainingRules } from '../../service/server';
import { TrainingStore } from '../../service/training/store';
import { ApiKeyStore } from '../../service/access/keys';
import { UserStore } from '../../service/access/users';
import { appCall, bearer, call, ownerMetadata, startTestService, tokenFor, uploadFile, type TestService } from './helpers';

type Identity = 'organization owner' | 'organization operator' | 'location owner' | 'location operator' | 'machine owner' | 'machine operator' | 'another organization' | 'no token';
const IDENTITIES: readonly Identity[] = ['organization owner', 'organization operator', 'location owner', 'location operator', 'machine owner', 'machine operator', 'another organization', 'no token'];
/** `registry`: a private item, module or fragment of the organization (organization roles only; others do not see it). */
type Level = 'none' | 'organization' | 'location' | 'robot' | 'registry';
type Need = 'authenticated' | 'sees' | 'operator' | 'owner' | 'public';
type Service = 'app' | 'training' | 'auth';

interface World {
  readonly orgId: string;
  readonly locationId: string;
  /** An empty child of the location. */
  readonly childId: string;
  readonly robotId: string;
  readonly mainPartId: string;
  readonly mainPartName: string;
  readonly otherPartId: string;
  /** An organization the location is shared with, and one it is not. */
  readonly sharedWith: string;
  readonly partner: string;
  readonly namespace: string;
  readonly moduleId: string;
  readonly appName: string;
  readonly scriptId: string;
  readonly pendingJobId: string;
  readonly privateFragmentId: string;
  readonly publicFragmentId: string;
  /** A user holding operator on the location. */
  readonly memberId: string;
  readonly memberEmail: string;
  /** Made for the case that consumes it (what it deletes, rotates, cancels), by the world's maker. */
  readonly fresh: Readonly<Record<string, string>>;
}

interface Case {
  readonly service: Service;
  readonly method: string;
  readonly label?: string;
  readonly level: Level;
  readonly need: Need;
  readonly request: (w: World) => Record<string, unknown>;
  /** Makes the resource the call consumes, as the world's maker (an id, in `w.fresh[label]`). */
  readonly fresh?: (w: Omit<World, 'fresh'>) => Promise<string>;
  /** Ends the world (or needs what parallel calls change): called after every other call (see beforeAll for the order). */
  readonly last?: boolean;
  /** Not implemented yet: UNIMPLEMENTED for now. */
  readonly pending?: true;
  /** An expectation section 10's levels do not express. */
  readonly expected?: (identity: Identity) => 'OK' | status;
  /** How to make the call when it is not unary. */
  readonly call?: (w: World, md: Metadata) => Promise<unknown>;
}

let t: TestService;
let admin: Metadata;
let training: MLTrainingServiceClient;
const runId = Date.now().toString(36);
let worlds = 0;

const trainingTypes = trainingMessages as unknown as Record<string, { fromPartial(v: unknown): unknown }>;
function trainingCall(method: string, request: Record<string, unknown>, md: Metadata): Promise<unknown> {
  const type = trainingTypes[`${method.charAt(0).toUpperCase()}${method.slice(1)}Request`]!;
  const bound = (training[method as 'getTrainingJob'] as unknown as (...args: unknown[]) => unknown).bind(training) as Parameters<typeof call<unknown, unknown>>[0];
  return call(bound, type.fromPartial(request), md);
}

const key = async (w: Omit<World, 'fresh'>) =>
  (await appCall(t, 'createKey', { orgId: w.orgId, authorizations: [{ role: 'operator', resourceType: 'location', resourceId: w.locationId }], name: 'to act on' }, admin)).id;
const job = (w: Omit<World, 'fresh'>, version: string, canceled = false) => {
  const id = new TrainingStore(t.db()).submit({ orgId: w.orgId, datasetId: 'any-dataset', modelName: 'world-model', modelVersion: version, modelType: ModelType.MODEL_TYPE_OBJECT_DETECTION, tags: ['pallet'] }, Date.now());
  if (canceled) t.db().prepare('UPDATE training_jobs SET status = 6 WHERE id = ?').run(id);
  return Promise.resolve(id);
};
let invites = 0;
/** A pending invite (without mail) of operator on the location, for the case that consumes it; its email. */
const invite = async (w: Omit<World, 'fresh'>) => {
  const email = `invited-${++invites}-${runId}@example.com`;
  await appCall(t, 'createOrganizationInvite', { orgId: w.orgId, email, sendEmailInvite: false, authorizations: [{ roleId: 'operator', resourceType: 'location', resourceId: w.locationId }] }, admin);
  return email;
};
/** Owner on any organization: the caller's own or another. */
const ownerAnywhere = (identity: Identity) => (identity === 'no token' ? status.UNAUTHENTICATED : identity === 'organization owner' || identity === 'another organization' ? 'OK' : status.PERMISSION_DENIED);

const app = (c: Omit<Case, 'service'>): Case => ({ service: 'app', ...c });

const CASES: Case[] = [
  { service: 'auth', method: 'authenticate', level: 'none', need: 'public', request: () => ({}), call: () => tokenFor(t, t.service.bootstrap.apiKeyId, t.service.bootstrap.apiKey) },
  // Users and organizations.
  app({ method: 'getUserIdByEmail', level: 'organization', need: 'owner', expected: ownerAnywhere, request: (w) => ({ email: w.memberEmail }) }),
  // Last: the caller owns the organization it makes, and an owner of any organization may call
  // GetUserIDByEmail; made beside it, the location owner's call was allowed when this one came first
  // (seen once in CI).
  app({ method: 'createOrganization', level: 'none', need: 'authenticated', last: true, request: () => ({ name: 'Made By Anyone' }) }),
  app({ method: 'listOrganizations', level: 'none', need: 'authenticated', request: () => ({}) }),
  app({ method: 'getOrganizationsWithAccessToLocation', level: 'location', need: 'owner', request: (w) => ({ locationId: w.locationId }) }),
  app({ method: 'listOrganizationsByUser', level: 'none', need: 'authenticated', request: () => ({ userId: 'user-1' }) }),
  app({ method: 'getOrganization', level: 'organization', need: 'sees', request: (w) => ({ orgId: w.orgId }) }),
  app({ method: 'getOrganizationNamespaceAvailability', level: 'none', need: 'authenticated', request: () => ({ publicNamespace: 'anything-free' }) }),
  app({ method: 'updateOrganization', level: 'organization', need: 'owner', request: (w) => ({ orgId: w.orgId, region: 'eu' }) }),
  app({ method: 'deleteOrganization', level: 'organization', need: 'owner', last: true, request: (w) => ({ orgId: w.orgId }) }),
  app({ method: 'listOrganizationMembers', level: 'organization', need: 'operator', request: (w) => ({ orgId: w.orgId }) }),
  app({
    method: 'createOrganizationInvite',
    level: 'organization',
    need: 'owner',
    request: (w) => ({ orgId: w.orgId, email: `new-${w.orgId}@example.com`, sendEmailInvite: false, authorizations: [{ roleId: 'operator', resourceType: 'robot', resourceId: w.robotId }] }),
  }),
  app({
    method: 'updateOrganizationInviteAuthorizations',
    level: 'organization',
    need: 'owner',
    fresh: invite,
    request: (w) => ({ orgId: w.orgId, email: w.fresh.updateOrganizationInviteAuthorizations, addAuthorizations: [{ roleId: 'owner', resourceType: 'robot', resourceId: w.robotId }] }),
  }),
  app({ method: 'deleteOrganizationMember', level: 'organization', need: 'owner', request: (w) => ({ orgId: w.orgId, userId: w.memberId }) }),
  app({ method: 'deleteOrganizationInvite', level: 'organization', need: 'owner', fresh: invite, request: (w) => ({ orgId: w.orgId, email: w.fresh.deleteOrganizationInvite }) }),
  app({ method: 'resendOrganizationInvite', level: 'organization', need: 'owner', fresh: invite, request: (w) => ({ orgId: w.orgId, email: w.fresh.resendOrganizationInvite }) }),
  // Public: the invite's token is its credential (an unknown one is NOT_FOUND for everyone, a token or none).
  app({ method: 'acceptOrganizationInvite', level: 'none', need: 'public', expected: () => status.NOT_FOUND, request: () => ({ token: 'no-such-invite-token' }) }),
  app({ method: 'getOrganizationMetadata', level: 'organization', need: 'operator', request: (w) => ({ orgId: w.orgId }) }),
  app({ method: 'updateOrganizationMetadata', level: 'organization', need: 'owner', request: (w) => ({ orgId: w.orgId, metadata: { a: 1 } }) }),
  // Locations and their secrets.
  app({ method: 'createLocation', label: 'createLocation at the top level', level: 'organization', need: 'owner', request: (w) => ({ orgId: w.orgId, name: 'New Top' }) }),
  app({ method: 'createLocation', label: 'createLocation under the location', level: 'location', need: 'owner', request: (w) => ({ orgId: w.orgId, name: 'New Child', parentLocationId: w.locationId }) }),
  app({ method: 'getLocation', level: 'location', need: 'operator', request: (w) => ({ locationId: w.locationId }) }),
  app({ method: 'updateLocation', level: 'location', need: 'owner', request: (w) => ({ locationId: w.locationId, name: 'Renamed' }) }),
  app({ method: 'deleteLocation', level: 'location', need: 'owner', request: (w) => ({ locationId: w.childId }) }),
  app({ method: 'listLocations', level: 'organization', need: 'sees', request: (w) => ({ orgId: w.orgId }) }),
  app({ method: 'shareLocation', level: 'location', need: 'owner', request: (w) => ({ organizationId: w.partner, locationId: w.locationId }) }),
  app({ method: 'unshareLocation', level: 'location', need: 'owner', request: (w) => ({ organizationId: w.sharedWith, locationId: w.locationId }) }),
  app({ method: 'locationAuth', level: 'location', need: 'owner', request: (w) => ({ locationId: w.locationId }) }),
  app({ method: 'createLocationSecret', level: 'location', need: 'owner', request: (w) => ({ locationId: w.locationId }) }),
  app({
    method: 'deleteLocationSecret',
    level: 'location',
    need: 'owner',
    fresh: async (w) => (await appCall(t, 'createLocationSecret', { locationId: w.locationId }, admin)).auth!.secrets.at(-1)!.id,
    request: (w) => ({ locationId: w.locationId, secretId: w.fresh.deleteLocationSecret }),
  }),
  app({ method: 'getLocationMetadata', level: 'location', need: 'operator', request: (w) => ({ locationId: w.locationId }) }),
  app({ method: 'updateLocationMetadata', level: 'location', need: 'owner', request: (w) => ({ locationId: w.locationId, metadata: {} }) }),
  // Machines and parts.
  app({ method: 'getRobot', level: 'robot', need: 'operator', request: (w) => ({ robotId: w.robotId }) }),
  app({ method: 'getRobotApiKeys', level: 'robot', need: 'owner', request: (w) => ({ robotId: w.robotId }) }),
  app({ method: 'getRobotParts', level: 'robot', need: 'operator', request: (w) => ({ robotId: w.robotId }) }),
  app({ method: 'getRobotPart', level: 'robot', need: 'operator', request: (w) => ({ robotPartId: w.mainPartId }) }),
  app({ method: 'getRobotPartLogs', level: 'robot', need: 'operator', request: (w) => ({ robotPartId: w.mainPartId }) }),
  app({ method: 'getRobotPartByNameAndLocation', level: 'robot', need: 'operator', request: (w) => ({ name: w.mainPartName, locationId: w.locationId }) }),
  app({ method: 'tailRobotPartLogs', level: 'robot', need: 'operator', request: (w) => ({ robotPartId: w.mainPartId }) }),
  app({ method: 'getRobotPartHistory', level: 'robot', need: 'operator', request: (w) => ({ robotPartId: w.mainPartId }) }),
  app({ method: 'updateRobotPart', level: 'robot', need: 'owner', request: (w) => ({ robotPartId: w.mainPartId, name: w.mainPartName, robotConfigJson: '{"components": []}' }) }),
  app({ method: 'newRobotPart', level: 'robot', need: 'owner', request: (w) => ({ robotId: w.robotId, partName: 'added-part' }) }),
  app({
    method: 'deleteRobotPart',
    level: 'robot',
    need: 'owner',
    fresh: async (w) => (await appCall(t, 'newRobotPart', { robotId: w.robotId, partName: 'to-delete' }, admin)).partId,
    request: (w) => ({ robotPartId: w.fresh.deleteRobotPart }),
  }),
  app({ method: 'markPartAsMain', level: 'robot', need: 'owner', request: (w) => ({ robotPartId: w.otherPartId }) }),
  app({ method: 'markPartForRestart', level: 'robot', need: 'operator', request: (w) => ({ robotPartId: w.mainPartId }) }),
  app({ method: 'createRobotPartSecret', level: 'robot', need: 'owner', request: (w) => ({ robotPartId: w.mainPartId }) }),
  app({
    method: 'deleteRobotPartSecret',
    level: 'robot',
    need: 'owner',
    fresh: async (w) => (await appCall(t, 'createRobotPartSecret', { robotPartId: w.otherPartId }, admin)).part!.secrets.at(-1)!.id,
    request: (w) => ({ robotPartId: w.otherPartId, secretId: w.fresh.deleteRobotPartSecret }),
  }),
  app({ method: 'listRobots', level: 'location', need: 'operator', request: (w) => ({ locationId: w.locationId }) }),
  app({ method: 'newRobot', level: 'location', need: 'owner', request: (w) => ({ name: 'added-robot', locationId: w.locationId }) }),
  app({ method: 'updateRobot', level: 'robot', need: 'owner', request: (w) => ({ robotId: w.robotId, name: 'renamed-robot', locationId: w.locationId }) }),
  app({ method: 'deleteRobot', level: 'robot', need: 'owner', last: true, request: (w) => ({ robotId: w.robotId }) }),
  app({ method: 'getRobotMetadata', level: 'robot', need: 'operator', request: (w) => ({ robotId: w.robotId }) }),
  app({ method: 'getRobotPartMetadata', level: 'robot', need: 'operator', request: (w) => ({ robotPartId: w.mainPartId }) }),
  app({ method: 'updateRobotMetadata', level: 'robot', need: 'owner', request: (w) => ({ robotId: w.robotId, metadata: { b: 2 } }) }),
  app({ method: 'updateRobotPartMetadata', level: 'robot', need: 'owner', request: (w) => ({ robotPartId: w.mainPartId, metadata: { c: 3 } }) }),
  // Fragments.
  app({ method: 'listFragments', level: 'organization', need: 'operator', request: (w) => ({ orgId: w.orgId }) }),
  app({ method: 'listMachineFragments', level: 'robot', need: 'operator', request: (w) => ({ machineId: w.robotId }) }),
  app({ method: 'listMachineSummaries', level: 'organization', need: 'sees', request: (w) => ({ organizationId: w.orgId }) }),
  app({ method: 'getFragment', label: 'getFragment of a private fragment', level: 'registry', need: 'sees', request: (w) => ({ fragmentId: w.privateFragmentId }) }),
  app({ method: 'getFragment', label: 'getFragment of a public fragment', level: 'none', need: 'authenticated', request: (w) => ({ fragmentId: w.publicFragmentId }) }),
  app({ method: 'createFragment', level: 'organization', need: 'owner', request: (w) => ({ orgId: w.orgId, name: 'New fragment' }) }),
  app({ method: 'updateFragment', level: 'registry', need: 'owner', request: (w) => ({ fragmentId: w.privateFragmentId, name: 'Renamed fragment' }) }),
  app({
    method: 'deleteFragment',
    level: 'registry',
    need: 'owner',
    fresh: async (w) => (await appCall(t, 'createFragment', { orgId: w.orgId, name: 'To delete' }, admin)).fragment!.id,
    request: (w) => ({ fragmentId: w.fresh.deleteFragment }),
  }),
  app({ method: 'getFragmentHistory', level: 'registry', need: 'operator', request: (w) => ({ id: w.privateFragmentId }) }),
  app({ method: 'setFragmentTag', level: 'registry', need: 'owner', request: (w) => ({ fragmentId: w.privateFragmentId, tag: 'canary' }) }),
  app({ method: 'deleteFragmentTag', level: 'registry', need: 'owner', request: (w) => ({ fragmentId: w.privateFragmentId, tag: 'stable' }) }),
  // Roles and permissions.
  app({ method: 'addRole', level: 'organization', need: 'owner', request: (w) => ({ orgId: w.orgId, identityId: w.fresh.addRole, role: 'operator', resourceType: 'robot', resourceId: w.robotId }), fresh: key }),
  app({ method: 'removeRole', level: 'organization', need: 'owner', request: (w) => ({ orgId: w.orgId, identityId: w.fresh.removeRole, role: 'operator', resourceType: 'location', resourceId: w.locationId }), fresh: key }),
  app({
    method: 'changeRole',
    level: 'organization',
    need: 'owner',
    fresh: key,
    request: (w) => ({
      organizationId: w.orgId,
      oldIdentityId: w.fresh.changeRole,
      oldRole: 'operator',
      oldResourceType: 'location',
      oldResourceId: w.locationId,
      newIdentityId: w.fresh.changeRole,
      newRole: 'owner',
      newResourceType: 'location',
      newResourceId: w.locationId,
    }),
  }),
  app({ method: 'listAuthorizations', level: 'organization', need: 'owner', request: (w) => ({ orgId: w.orgId }) }),
  app({ method: 'checkPermissions', level: 'none', need: 'authenticated', request: (w) => ({ permissions: [{ resourceType: 'robot', resourceId: w.robotId, permissions: ['read_robot'] }] }) }),
  // Registry items and modules.
  app({ method: 'getRegistryItem', level: 'registry', need: 'sees', request: (w) => ({ itemId: w.scriptId }) }),
  app({ method: 'createRegistryItem', level: 'organization', need: 'owner', request: (w) => ({ organizationId: w.orgId, name: 'new-item', type: PackageType.PACKAGE_TYPE_ML_MODEL }) }),
  app({ method: 'updateRegistryItem', level: 'registry', need: 'owner', request: (w) => ({ itemId: w.scriptId, type: PackageType.PACKAGE_TYPE_ML_TRAINING, visibility: Visibility.VISIBILITY_PRIVATE, description: 'x' }) }),
  app({ method: 'listRegistryItems', level: 'organization', need: 'sees', request: (w) => ({ organizationId: w.orgId }) }),
  app({
    method: 'deleteRegistryItem',
    level: 'registry',
    need: 'owner',
    fresh: async (w) => {
      await appCall(t, 'createRegistryItem', { organizationId: w.orgId, name: 'to-delete', type: PackageType.PACKAGE_TYPE_ML_MODEL }, admin);
      return `${w.namespace}:to-delete`;
    },
    request: (w) => ({ itemId: w.fresh.deleteRegistryItem }),
  }),
  app({ method: 'createModule', level: 'organization', need: 'owner', request: (w) => ({ orgId: w.orgId, name: 'new-module' }) }),
  app({ method: 'updateModule', level: 'registry', need: 'owner', request: (w) => ({ moduleId: w.moduleId, url: 'https://example.com', entrypoint: 'run' }) }),
  app({
    method: 'uploadModuleFile',
    level: 'registry',
    need: 'owner',
    last: true,
    request: () => ({}),
    call: (w, md) => uploadFile(t, { moduleId: w.moduleId, version: '2.0.0', platform: 'linux/any' }, [Buffer.from('bytes')], md),
  }),
  app({ method: 'getModuleFileUpload', level: 'registry', need: 'owner', request: (w) => ({ moduleFileInfo: { moduleId: w.moduleId, version: '2.0.0', platform: 'linux/any' } }) }),
  app({ method: 'getModule', level: 'registry', need: 'sees', request: (w) => ({ moduleId: w.moduleId }) }),
  app({ method: 'listModules', level: 'organization', need: 'sees', request: (w) => ({ orgId: w.orgId }) }),
  app({ method: 'listRegistryItemVersions', level: 'registry', need: 'sees', request: (w) => ({ itemId: w.moduleId }) }),
  // API keys and app content.
  app({ method: 'createKey', level: 'organization', need: 'owner', request: (w) => ({ orgId: w.orgId, authorizations: [{ role: 'operator', resourceType: 'robot', resourceId: w.robotId }] }) }),
  app({ method: 'deleteKey', level: 'organization', need: 'owner', fresh: key, request: (w) => ({ id: w.fresh.deleteKey }) }),
  app({ method: 'rotateKey', level: 'organization', need: 'owner', fresh: key, request: (w) => ({ id: w.fresh.rotateKey }) }),
  app({ method: 'listKeys', level: 'organization', need: 'owner', request: (w) => ({ orgId: w.orgId }) }),
  app({ method: 'renameKey', level: 'organization', need: 'owner', fresh: key, request: (w) => ({ id: w.fresh.renameKey, name: 'Renamed key' }) }),
  app({ method: 'createKeyFromExistingKeyAuthorizations', level: 'organization', need: 'owner', fresh: key, request: (w) => ({ id: w.fresh.createKeyFromExistingKeyAuthorizations }) }),
  app({ method: 'getAppContent', level: 'registry', need: 'sees', request: (w) => ({ publicNamespace: w.namespace, name: w.appName }) }),
  app({ method: 'getAppBranding', level: 'registry', need: 'sees', request: (w) => ({ publicNamespace: w.namespace, name: w.appName }) }),
  // ML training: owner on the job's organization, through an organization role only.
  ...(
    [
      ['submitTrainingJob', (w: World) => ({ orgId: w.orgId, datasetId: 'any-dataset', modelName: 'perm-model', modelVersion: '1', modelType: ModelType.MODEL_TYPE_OBJECT_DETECTION, tags: ['pallet'] })],
      ['submitCustomTrainingJob', (w: World) => ({ orgId: w.orgId, datasetId: 'any-dataset', registryItemId: w.scriptId, registryItemVersion: '1.0.0', modelName: 'perm-model', modelVersion: '2' })],
      ['getTrainingJob', (w: World) => ({ id: w.pendingJobId })],
      ['listTrainingJobs', (w: World) => ({ orgId: w.orgId })],
      ['cancelTrainingJob', (w: World) => ({ id: w.fresh.cancelTrainingJob })],
      ['deleteCompletedTrainingJob', (w: World) => ({ id: w.fresh.deleteCompletedTrainingJob })],
      ['listTrainingDatasets', (w: World) => ({ orgId: w.orgId })],
      ['listModelVersions', (w: World) => ({ orgId: w.orgId })],
    ] as const
  ).map(
    ([method, request], i): Case => ({
      service: 'training',
      method,
      level: 'organization',
      need: 'owner',
      request,
      ...(method === 'cancelTrainingJob' ? { fresh: (w: Omit<World, 'fresh'>) => job(w, `c${i}`) } : {}),
      ...(method === 'deleteCompletedTrainingJob' ? { fresh: (w: Omit<World, 'fresh'>) => job(w, `d${i}`, true) } : {}),
    }),
  ),
];

const labelOf = (c: Case) => c.label ?? c.method;

/** The role each in-organization caller holds on a resource of each level (section 10: what covers what). */
const COVERS: Record<Exclude<Identity, 'another organization' | 'no token'>, Record<'organization' | 'location' | 'robot', 'owner' | 'operator' | null>> = {
  'organization owner': { organization: 'owner', location: 'owner', robot: 'owner' },
  'organization operator': { organization: 'operator', location: 'operator', robot: 'operator' },
  'location owner': { organization: null, location: 'owner', robot: 'owner' },
  'location operator': { organization: null, location: 'operator', robot: 'operator' },
  'machine owner': { organization: null, location: null, robot: 'owner' },
  'machine operator': { organization: null, location: null, robot: 'operator' },
};

function expected(identity: Identity, c: Case): 'OK' | status {
  if (c.need === 'public') return c.expected?.(identity) ?? 'OK';
  if (identity === 'no token') return status.UNAUTHENTICATED;
  if (c.pending) return status.UNIMPLEMENTED;
  if (c.expected) return c.expected(identity);
  if (c.level === 'registry') {
    if (identity === 'organization owner') return 'OK';
    if (identity === 'organization operator') return c.need === 'owner' ? status.PERMISSION_DENIED : 'OK';
    return status.NOT_FOUND;
  }
  if (c.need === 'authenticated' || c.level === 'none') return 'OK';
  if (identity === 'another organization') return status.NOT_FOUND;
  if (c.need === 'sees') return 'OK';
  const role = COVERS[identity][c.level];
  if (role === null || (c.need === 'owner' && role !== 'owner')) return status.PERMISSION_DENIED;
  return 'OK';
}

/** A fresh organization with a location (and an empty child), a machine of two parts, a share, registry items, jobs and fragments. */
async function world(): Promise<Omit<World, 'fresh'>> {
  const n = ++worlds;
  const org = async (name: string) => (await appCall(t, 'createOrganization', { name }, admin)).organization!.id;
  const [orgId, sharedWith, partner] = await Promise.all([org(`World ${n}`), org(`Shared ${n}`), org(`Partner ${n}`)]);
  const locationId = (await appCall(t, 'createLocation', { orgId, name: 'Site' }, admin)).location!.id;
  const childId = (await appCall(t, 'createLocation', { orgId, name: 'Empty', parentLocationId: locationId }, admin)).location!.id;
  const robotId = (await appCall(t, 'newRobot', { name: `bot-${n}`, locationId }, admin)).id;
  const otherPartId = (await appCall(t, 'newRobotPart', { robotId, partName: `bot-${n}-cam` }, admin)).partId;
  await appCall(t, 'shareLocation', { organizationId: sharedWith, locationId }, admin);
  const main = (await appCall(t, 'getRobotParts', { robotId }, admin)).parts[0]!;
  const namespace = `matrix-${n}-${runId}`;
  await appCall(t, 'updateOrganization', { orgId, publicNamespace: namespace }, admin);
  const { moduleId } = await appCall(t, 'createModule', { orgId, name: 'driver' }, admin);
  const appName = 'panel';
  await appCall(t, 'updateModule', { moduleId, url: 'https://example.com/driver', entrypoint: 'run', apps: [{ name: appName, type: AppType.APP_TYPE_SINGLE_MACHINE, entrypoint: 'index.html', logoPath: '', customizations: {}, fragmentIds: [] }] }, admin);
  await uploadFile(t, { moduleId, version: '1.0.0', platform: 'linux/any' }, [Buffer.from('v1')], admin);
  await appCall(t, 'createRegistryItem', { organizationId: orgId, name: 'trainer', type: PackageType.PACKAGE_TYPE_ML_TRAINING }, admin);
  const privateFragmentId = (await appCall(t, 'createFragment', { orgId, name: 'Private base' }, admin)).fragment!.id;
  await appCall(t, 'setFragmentTag', { fragmentId: privateFragmentId, tag: 'stable' }, admin);
  const publicFragmentId = (await appCall(t, 'createFragment', { orgId, name: 'Public base', visibility: FragmentVisibility.FRAGMENT_VISIBILITY_PUBLIC }, admin)).fragment!.id;
  const memberEmail = `member-${n}-${runId}@example.com`;
  const memberId = new UserStore(t.db(), new ApiKeyStore(t.db())).create(memberEmail, 'Member').id;
  await appCall(t, 'addRole', { orgId, identityId: memberId, role: 'operator', resourceType: 'location', resourceId: locationId }, admin);
  const base = { memberId, memberEmail, orgId, locationId, childId, robotId, mainPartId: main.id, mainPartName: main.name, otherPartId, sharedWith, partner, namespace, moduleId, appName, scriptId: `${namespace}:trainer`, privateFragmentId, publicFragmentId, pendingJobId: '' };
  return { ...base, pendingJobId: await job(base, '0') };
}

/** A key of `identity` in world `w`, made with CreateKey by the world's maker (another organization's: in an organization of its own). */
async function metadataFor(identity: Identity, w: Omit<World, 'fresh'>): Promise<Metadata> {
  if (identity === 'no token') return new Metadata();
  const make = async (orgId: string, role: 'owner' | 'operator', resourceType: string, resourceId: string) => {
    const made = await appCall(t, 'createKey', { orgId, authorizations: [{ role, resourceType, resourceId }], name: identity }, admin);
    return bearer(await tokenFor(t, made.id, made.key));
  };
  const [scope, role] = identity.split(' ') as [string, 'owner' | 'operator'];
  switch (scope) {
    case 'organization':
      return make(w.orgId, role, 'organization', w.orgId);
    case 'location':
      return make(w.orgId, role, 'location', w.locationId);
    case 'machine':
      return make(w.orgId, role, 'robot', w.robotId);
    default: {
      const own = (await appCall(t, 'createOrganization', { name: `Elsewhere ${worlds}` }, admin)).organization!.id;
      return make(own, 'owner', 'organization', own);
    }
  }
}

function invoke(c: Case, w: World, md: Metadata): Promise<unknown> {
  if (c.call) return c.call(w, md);
  if (c.service === 'training') return trainingCall(c.method, c.request(w), md);
  return appCall(t, c.method as 'getRobot', c.request(w) as never, md);
}

/** What each (case, identity) answered: 'OK' or the error's code and message. */
const outcomes = new Map<string, 'OK' | { code: status; details: string }>();
const outcomeKey = (c: Case, identity: Identity) => `${labelOf(c)} as ${identity}`;

beforeAll(async () => {
  t = await startTestService();
  admin = await ownerMetadata(t);
  training = new MLTrainingServiceClient(t.service.address, credentials.createInsecure());
  const started = Date.now();
  await Promise.all(
    IDENTITIES.map(async (identity) => {
      const base = await world();
      const md = await metadataFor(identity, base);
      const fresh: Record<string, string> = {};
      for (const c of CASES) if (c.fresh) fresh[labelOf(c)] = await c.fresh(base);
      const w: World = { ...base, fresh };
      const run = async (c: Case) => {
        const outcome = await invoke(c, w, md).then(
          () => 'OK' as const,
          (e: { code: status; details: string }) => ({ code: e.code, details: e.details }),
        );
        outcomes.set(outcomeKey(c, identity), outcome);
      };
      await Promise.all(CASES.filter((c) => !c.last).map(run));
      // Calls expected to be refused first (a refusal changes nothing: a machine key that deleted its
      // machine would no longer see the organization), then the allowed ones, the organization last.
      const rank = (c: Case) => (expected(identity, c) !== 'OK' ? 0 : c.method === 'deleteOrganization' ? 2 : 1);
      for (const c of CASES.filter((c) => c.last).sort((a, b) => rank(a) - rank(b))) await run(c);
    }),
  );
  // Kept in view: the matrix must stay cheap enough for CI.
  console.info(`permission matrix: ${CASES.length} rows × ${IDENTITIES.length} identities in ${Date.now() - started} ms`);
}, 60_000);
afterAll(async () => {
  training.close();
  await t.stop();
});

it('has a row for every operation of every service of the contract, and marks pending exactly those without a permission row (or public handler) yet', () => {
  const definitions: Record<Service, object> = { app: AppServiceService, training: MLTrainingServiceService, auth: AuthServiceService };
  for (const [service, definition] of Object.entries(definitions) as [Service, object][]) {
    const rows = new Set(CASES.filter((c) => c.service === service).map((c) => c.method));
    expect([...rows].sort(), `${service}: every operation has a row, and every row an operation`).toEqual(Object.keys(definition).sort());
  }
  const ruled = new Set([...Object.keys(appRules), ...Object.keys(trainingRules)]);
  const pending = CASES.filter((c) => c.pending).map((c) => c.method);
  expect(pending.filter((m) => ruled.has(m)), 'implemented now: take `pending` off these rows').toEqual([]);
  expect(CASES.filter((c) => !c.pending && c.need !== 'public' && !ruled.has(c.method)).map((c) => c.method), 'rows of unimplemented operations must be marked pending').toEqual([]);
});

describe.each(CASES.map((c) => [labelOf(c), c] as const))('%s', (_label, c) => {
  it.each(IDENTITIES)('as %s', (identity) => {
    const want = expected(identity, c);
    const outcome = outcomes.get(outcomeKey(c, identity));
    expect(outcome, 'the call was made').toBeDefined();
    if (want === 'OK') {
      expect(outcome, `${labelOf(c)} as ${identity}`).toBe('OK');
      return;
    }
    expect(outcome, `${labelOf(c)} as ${identity}`).not.toBe('OK');
    const failed = outcome as { code: status; details: string };
    expect({ code: status[failed.code], details: failed.details }).toMatchObject({ code: status[want] });
    // A denial says which role is missing.
    if (want === status.PERMISSION_DENIED) expect(failed.details).toMatch(/needs (owner|operator) on|owner on its organization/);
  });
});
