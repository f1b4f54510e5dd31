// The registry's rules (docs/PROTOCOL.md sections 8 and 11), each over a real socket: items and
// modules, their ids in both forms, names, enums, listings with every filter and paging, the module
// manifest, uploads (atomic, immutable, resumable), deletion, and app content.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { status, type Metadata, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppType } from '../../proto/gen/fleet/app/v1/apps';
import { PackageType, RegistryItemStatus, Visibility } from '../../proto/gen/fleet/app/v1/registry';
import { appCall, createKeyWithOrg, bearer, expectError, ownerMetadata, scopedKey, startTestService, tokenFor, uploadFile, type TestService } from './helpers';

let t: TestService;
let owner: Metadata;
let orgId: string;
let other: Metadata;
let otherOrgId: string;
let names = 0;
const fresh = (prefix: string) => `${prefix}-${++names}`;

beforeAll(async () => {
  t = await startTestService();
  owner = await ownerMetadata(t);
  orgId = (await appCall(t, 'createOrganization', { name: 'Registry Co' }, owner)).organization!.id;
  const key = await createKeyWithOrg(t, 'Outsiders Inc');
  other = bearer(await tokenFor(t, key.keyId, key.secret));
  otherOrgId = key.orgId;
});
afterAll(async () => {
  await t.stop();
});

const MANIFEST = { url: 'https://github.com/acme/lidar', description: 'A lidar driver', models: [{ api: 'rdk:component:camera', model: 'acme:lidar:v1' }], entrypoint: 'bin/lidar' };

async function module(name = fresh('mod'), org = orgId): Promise<string> {
  const { moduleId } = await appCall(t, 'createModule', { orgId: org, name }, owner);
  await appCall(t, 'updateModule', { moduleId, ...MANIFEST }, owner);
  return moduleId;
}

/** GetModuleFileUpload once the service has taken in what was sent (a cut-off stream is noticed asynchronously). */
async function heldEventually(info: { moduleId: string; version: string; platform: string }, expected: number) {
  const until = Date.now() + 5000;
  for (;;) {
    const held = await appCall(t, 'getModuleFileUpload', { moduleFileInfo: info }, owner);
    if (held.committedBytes === expected || Date.now() > until) return held;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const bytes = (n: number, seed = 1) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed) % 251));
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const chunked = (b: Buffer, size = 64 * 1024) => Array.from({ length: Math.ceil(b.length / size) }, (_, i) => b.subarray(i * size, (i + 1) * size));

describe('items and modules', () => {
  it('creates private items in development, named <org id>:<name>, and reads them by either id form once the organization has a namespace', async () => {
    const name = fresh('model');
    expect(await appCall(t, 'createRegistryItem', { organizationId: orgId, name, type: PackageType.PACKAGE_TYPE_ML_MODEL }, owner)).toEqual({});
    const { item } = await appCall(t, 'getRegistryItem', { itemId: `${orgId}:${name}` }, owner);
    expect(item).toMatchObject({ itemId: `${orgId}:${name}`, organizationId: orgId, name, type: PackageType.PACKAGE_TYPE_ML_MODEL, visibility: Visibility.VISIBILITY_PRIVATE, status: RegistryItemStatus.REGISTRY_ITEM_STATUS_IN_DEVELOPMENT, platforms: [] });
    const ns = `reg-${Date.now().toString(36)}`;
    const withNs = (await appCall(t, 'createOrganization', { name: 'Namespaced' }, owner)).organization!.id;
    await appCall(t, 'updateOrganization', { orgId: withNs, publicNamespace: ns }, owner);
    await appCall(t, 'createRegistryItem', { organizationId: withNs, name: 'tool', type: PackageType.PACKAGE_TYPE_ARCHIVE }, owner);
    expect((await appCall(t, 'getRegistryItem', { itemId: `${ns}:tool` }, owner)).item?.itemId).toBe(`${ns}:tool`);
    expect((await appCall(t, 'getRegistryItem', { itemId: `${withNs}:tool` }, owner)).item?.itemId).toBe(`${ns}:tool`);
  });

  it('refuses bad names, UNSPECIFIED types and taken names (across types), and malformed or unknown ids', async () => {
    const create = (name: string, type: number) => appCall(t, 'createRegistryItem', { organizationId: orgId, name, type }, owner);
    await expectError(create('', 2), { code: status.INVALID_ARGUMENT, reason: 'REQUIRED_FIELD_MISSING', field: 'name' });
    await expectError(create('Has Caps', 2), { code: status.INVALID_ARGUMENT, reason: 'FIELD_INVALID', field: 'name' });
    await expectError(create('-dash-first', 2), { code: status.INVALID_ARGUMENT, reason: 'FIELD_INVALID', field: 'name' });
    await expectError(create('x'.repeat(201), 2), { code: status.INVALID_ARGUMENT, reason: 'FIELD_TOO_LONG', field: 'name' });
    await expectError(create('fine', 0), { code: status.INVALID_ARGUMENT, reason: 'ENUM_VALUE_INVALID', field: 'type' });
    await expectError(create('fine', 4), { code: status.INVALID_ARGUMENT, reason: 'ENUM_VALUE_INVALID', field: 'type' });
    const name = fresh('taken');
    await create(name, PackageType.PACKAGE_TYPE_ML_TRAINING);
    await expectError(create(name, PackageType.PACKAGE_TYPE_ARCHIVE), { code: status.ALREADY_EXISTS, reason: 'NAME_TAKEN', field: 'name' });
    await expectError(appCall(t, 'createModule', { orgId, name }, owner), { code: status.ALREADY_EXISTS, reason: 'NAME_TAKEN', message: /names are unique/ });
    await expectError(appCall(t, 'createModule', { orgId, name: '' }, owner), { code: status.INVALID_ARGUMENT, reason: 'REQUIRED_FIELD_MISSING' });
    await expectError(appCall(t, 'getRegistryItem', { itemId: 'no-colon' }, owner), { code: status.INVALID_ARGUMENT, reason: 'FIELD_INVALID', field: 'item_id' });
    await expectError(appCall(t, 'getRegistryItem', { itemId: `${orgId}:nothing-here` }, owner), { code: status.NOT_FOUND, reason: 'REGISTRY_ITEM_NOT_FOUND' });
    // A training script is no module.
    await expectError(appCall(t, 'getModule', { moduleId: `${orgId}:${name}` }, owner), { code: status.NOT_FOUND, reason: 'MODULE_NOT_FOUND' });
  });

  it('updates description, visibility and url; an item never changes type; public needs a namespace; url is absolute http(s) or left as it is when absent', async () => {
    const name = fresh('script');
    const itemId = `${orgId}:${name}`;
    await appCall(t, 'createRegistryItem', { organizationId: orgId, name, type: PackageType.PACKAGE_TYPE_ML_TRAINING }, owner);
    const update = (r: object) => appCall(t, 'updateRegistryItem', { itemId, type: PackageType.PACKAGE_TYPE_ML_TRAINING, visibility: Visibility.VISIBILITY_PRIVATE, description: 'd', ...r }, owner);
    await update({ description: 'Trains detectors', url: 'https://example.com/train' });
    await update({ description: 'Trains detectors, v2' });
    expect((await appCall(t, 'getRegistryItem', { itemId }, owner)).item).toMatchObject({ description: 'Trains detectors, v2', url: 'https://example.com/train' });
    await expectError(update({ type: PackageType.PACKAGE_TYPE_MODULE }), { code: status.INVALID_ARGUMENT, reason: 'TYPE_MISMATCH', field: 'type' });
    await expectError(update({ visibility: 0 }), { code: status.INVALID_ARGUMENT, reason: 'ENUM_VALUE_INVALID', field: 'visibility' });
    await expectError(update({ url: 'ftp://example.com' }), { code: status.INVALID_ARGUMENT, reason: 'URL_INVALID', field: 'url' });
    await expectError(update({ url: '/relative' }), { code: status.INVALID_ARGUMENT, reason: 'URL_INVALID', field: 'url' });
    await expectError(update({ visibility: Visibility.VISIBILITY_PUBLIC }), { code: status.FAILED_PRECONDITION, reason: 'NAMESPACE_REQUIRED' });
    await expectError(appCall(t, 'updateRegistryItem', { itemId: `${orgId}:gone`, type: 3, visibility: 1 }, owner), { code: status.NOT_FOUND, reason: 'REGISTRY_ITEM_NOT_FOUND' });
  });

  it('returns markdown documentation only when asked for', async () => {
    const name = fresh('documented');
    await appCall(t, 'createRegistryItem', { organizationId: orgId, name, type: PackageType.PACKAGE_TYPE_ARCHIVE }, owner);
    t.db().prepare("UPDATE registry_items SET markdown = '# Hello' WHERE name = ?").run(name);
    expect((await appCall(t, 'getRegistryItem', { itemId: `${orgId}:${name}` }, owner)).item?.markdownDocumentation).toBeUndefined();
    expect((await appCall(t, 'getRegistryItem', { itemId: `${orgId}:${name}`, includeMarkdownDocumentation: true }, owner)).item?.markdownDocumentation).toBe('# Hello');
  });

  it('CreateModule answers id and url; UpdateModule validates url, models, entrypoint, apps and visibility, and writes the manifest whole (apps and first_run kept)', async () => {
    const name = fresh('camera');
    const created = await appCall(t, 'createModule', { orgId, name }, owner);
    expect(created.moduleId).toBe(`${orgId}:${name}`);
    expect(created.url).toMatch(new RegExp(`/registry/${orgId}/${name}$`));
    const moduleId = created.moduleId;
    const update = (r: object) => appCall(t, 'updateModule', { moduleId, ...MANIFEST, ...r }, owner);
    await expectError(update({ url: 'not a url' }), { code: status.INVALID_ARGUMENT, reason: 'URL_INVALID', field: 'url' });
    await expectError(update({ models: [{ api: '', model: 'acme:x:y' }] }), { code: status.INVALID_ARGUMENT, reason: 'FIELD_INVALID', field: 'models[0].api' });
    await expectError(update({ models: [{ api: 'rdk:component:arm', model: ' ' }] }), { code: status.INVALID_ARGUMENT, reason: 'FIELD_INVALID', field: 'models[0].model' });
    await expectError(update({ entrypoint: '  ' }), { code: status.INVALID_ARGUMENT, reason: 'REQUIRED_FIELD_MISSING', field: 'entrypoint' });
    await expectError(update({ entrypoint: '../escape' }), { code: status.INVALID_ARGUMENT, reason: 'FIELD_INVALID', field: 'entrypoint' });
    await expectError(update({ apps: [{ name: 'Bad Name', type: 1, entrypoint: 'dist/index.html' }] }), { code: status.INVALID_ARGUMENT, reason: 'FIELD_INVALID', field: 'apps[0].name' });
    await expectError(update({ apps: [{ name: 'viewer', type: 0, entrypoint: 'dist/index.html' }] }), { code: status.INVALID_ARGUMENT, reason: 'ENUM_VALUE_INVALID', field: 'apps[0].type' });
    await expectError(update({ public: true }), { code: status.FAILED_PRECONDITION, reason: 'NAMESPACE_REQUIRED' });
    await expectError(appCall(t, 'updateModule', { moduleId: `${orgId}:missing`, ...MANIFEST }, owner), { code: status.NOT_FOUND, reason: 'MODULE_NOT_FOUND' });
    const answer = await update({ apps: [{ name: `${name}-viewer`, type: AppType.APP_TYPE_SINGLE_MACHINE, entrypoint: 'dist/index.html', logoPath: 'logo.png', customizations: {}, fragmentIds: [] }], firstRun: 'setup.sh' });
    expect(answer.url).toBe(created.url);
    const { module: m } = await appCall(t, 'getModule', { moduleId }, owner);
    expect(m).toMatchObject({ moduleId, name, url: MANIFEST.url, description: MANIFEST.description, models: MANIFEST.models, entrypoint: 'bin/lidar', visibility: Visibility.VISIBILITY_PRIVATE, firstRun: 'setup.sh', versions: [] });
    expect(m?.apps.map((a) => a.name)).toEqual([`${name}-viewer`]);
    // Another module of the organization cannot declare the same app.
    const second = await module();
    await expectError(appCall(t, 'updateModule', { moduleId: second, ...MANIFEST, apps: [{ name: `${name}-viewer`, type: 1, entrypoint: 'i.html', logoPath: '', customizations: {}, fragmentIds: [] }] }, owner), {
      code: status.ALREADY_EXISTS,
      reason: 'APP_NAME_TAKEN',
      field: 'apps[0].name',
    });
  });
});

describe('UploadModuleFile', () => {
  it('stores a file whole: url, size and SHA-256 answered and listed with the version; the item is published with its platforms', async () => {
    const moduleId = await module();
    const file = bytes(300_000);
    const answer = await uploadFile(t, { moduleId, version: '1.2.0', platform: 'linux/arm64' }, chunked(file), owner);
    expect(answer).toMatchObject({ sizeBytes: file.length, sha256: sha(file) });
    expect(answer.url).toMatch(/\/1\.2\.0\/linux\/arm64$/);
    await uploadFile(t, { moduleId, version: '1.10.0', platform: 'linux/any' }, [bytes(10)], owner);
    await uploadFile(t, { moduleId, version: '1.2.0', platform: 'darwin/arm64' }, [bytes(20)], owner);
    const { module: m } = await appCall(t, 'getModule', { moduleId }, owner);
    // Versions in semantic order (1.10.0 after 1.2.0), each with its files.
    expect(m?.versions.map((v) => [v.version, v.platforms])).toEqual([
      ['1.2.0', ['darwin/arm64', 'linux/arm64']],
      ['1.10.0', ['linux/any']],
    ]);
    expect(m?.versions[0]?.files.find((f) => f.platform === 'linux/arm64')).toMatchObject({ sizeBytes: 300_000, sha256: sha(file), url: answer.url });
    expect(m?.versions[0]).toMatchObject({ entrypoint: 'bin/lidar', models: MANIFEST.models });
    const { item } = await appCall(t, 'getRegistryItem', { itemId: moduleId }, owner);
    expect(item).toMatchObject({ status: RegistryItemStatus.REGISTRY_ITEM_STATUS_PUBLISHED, platforms: ['darwin/arm64', 'linux/any', 'linux/arm64'] });
  });

  it('refuses what the protocol refuses, and a refused or broken upload leaves nothing listed', async () => {
    const noEntrypoint = (await appCall(t, 'createModule', { orgId, name: fresh('bare') }, owner)).moduleId;
    const moduleId = await module();
    const up = (info: object, chunks = [bytes(10)], extra: object = {}) => uploadFile(t, { moduleId, version: '1.0.0', platform: 'linux/amd64', ...info }, chunks, owner, extra);
    await expectError(uploadFile(t, { moduleId: noEntrypoint, version: '1.0.0', platform: 'linux/amd64' }, [bytes(5)], owner), { code: status.FAILED_PRECONDITION, reason: 'ENTRYPOINT_MISSING' });
    await expectError(up({ version: '1.0' }), { code: status.INVALID_ARGUMENT, reason: 'VERSION_INVALID', field: 'module_file_info.version' });
    await expectError(up({ version: 'v1.0.0' }), { code: status.INVALID_ARGUMENT, reason: 'VERSION_INVALID' });
    await expectError(up({ platform: 'linux' }), { code: status.INVALID_ARGUMENT, reason: 'PLATFORM_INVALID', field: 'module_file_info.platform' });
    await expectError(up({ platform: 'Linux/AMD64' }), { code: status.INVALID_ARGUMENT, reason: 'PLATFORM_INVALID' });
    await expectError(up({ moduleId: `${orgId}:no-such` }), { code: status.NOT_FOUND, reason: 'MODULE_NOT_FOUND', field: 'module_file_info.module_id' });
    await expectError(up({}, []), { code: status.INVALID_ARGUMENT, reason: 'FILE_EMPTY' });
    await expectError(up({}, [Buffer.alloc(1024 * 1024 + 1)]), { code: status.INVALID_ARGUMENT, reason: 'CHUNK_TOO_LARGE' });
    const info = { moduleId, version: '1.0.0', platform: 'linux/amd64' };
    await expectError(uploadFile(t, info, [], owner, { messages: [{ moduleFile: { $case: 'file', value: bytes(3) }, writeOffset: 0 }] }), { code: status.INVALID_ARGUMENT, reason: 'UPLOAD_SEQUENCE_INVALID', field: 'module_file_info' });
    await expectError(
      uploadFile(t, info, [], owner, {
        messages: [
          { moduleFile: { $case: 'moduleFileInfo', value: info }, writeOffset: 0 },
          { moduleFile: { $case: 'moduleFileInfo', value: info }, writeOffset: 0 },
        ],
      }),
      { code: status.INVALID_ARGUMENT, reason: 'UPLOAD_SEQUENCE_INVALID' },
    );
    expect((await appCall(t, 'getModule', { moduleId }, owner)).module?.versions).toEqual([]);
    expect((await appCall(t, 'getModuleFileUpload', { moduleFileInfo: info }, owner)).committedBytes).toBe(0);
    // Uploaded once, a file is immutable.
    await up({});
    await expectError(up({}), { code: status.ALREADY_EXISTS, reason: 'MODULE_FILE_EXISTS' });
  });

  it('resumes: a stream cut off keeps its bytes, GetModuleFileUpload says how many, and a stream from there completes the file with the SHA-256 of the whole', async () => {
    const moduleId = await module();
    const info = { moduleId, version: '2.0.0', platform: 'linux/arm64' };
    const file = bytes(1_000_000, 7);
    const chunks = chunked(file);
    // Send 6 chunks, then cancel the call as a dropped connection would.
    await new Promise<void>((resolve) => {
      const stream = t.app.uploadModuleFile(owner, (e: ServiceError | null) => {
        expect(e?.code).toBe(status.CANCELLED);
        resolve();
      });
      stream.write({ moduleFile: { $case: 'moduleFileInfo', value: info }, writeOffset: 0 });
      for (const c of chunks.slice(0, 6)) stream.write({ moduleFile: { $case: 'file', value: c }, writeOffset: 0 });
      setTimeout(() => stream.cancel(), 300);
    });
    // Nothing listed, the bytes held.
    expect((await appCall(t, 'getModule', { moduleId }, owner)).module?.versions).toEqual([]);
    const held = await heldEventually(info, 6 * 64 * 1024);
    expect(held).toMatchObject({ committedBytes: 6 * 64 * 1024, complete: false });
    expect(held.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 23 * 3600_000);
    // The wrong offset is refused, saying the right one.
    await expectError(uploadFile(t, info, [bytes(10)], owner, { writeOffset: 1000 }), { code: status.FAILED_PRECONDITION, reason: 'UPLOAD_OFFSET_MISMATCH', message: /holds 393216 bytes/ });
    const answer = await uploadFile(t, info, chunks.slice(6), owner, { writeOffset: held.committedBytes });
    expect(answer).toMatchObject({ sizeBytes: file.length, sha256: sha(file) });
    expect(await appCall(t, 'getModuleFileUpload', { moduleFileInfo: info }, owner)).toMatchObject({ complete: true, sizeBytes: file.length, sha256: sha(file), url: answer.url });
    // Nothing of it is left in the uploads folder.
    expect(readdirSync(join(t.dataDir, 'registry', 'uploads'))).toEqual([]);
  });

  it('starts afresh from offset 0, discarding what an interrupted upload held', async () => {
    const moduleId = await module();
    const info = { moduleId, version: '3.0.0', platform: 'linux/amd64' };
    await new Promise<void>((resolve) => {
      const stream = t.app.uploadModuleFile(owner, () => resolve());
      stream.write({ moduleFile: { $case: 'moduleFileInfo', value: info }, writeOffset: 0 });
      stream.write({ moduleFile: { $case: 'file', value: bytes(5000, 9) }, writeOffset: 0 });
      setTimeout(() => stream.cancel(), 200);
    });
    expect((await heldEventually(info, 5000)).committedBytes).toBe(5000);
    const file = bytes(777, 3);
    expect(await uploadFile(t, info, [file], owner)).toMatchObject({ sizeBytes: 777, sha256: sha(file) });
  });

  it('lets a newer stream of the same file take over one that went quiet (a dead connection the service has not noticed)', async () => {
    const moduleId = await module();
    const info = { moduleId, version: '4.0.0', platform: 'linux/arm64' };
    const file = bytes(3000, 5);
    let first: ServiceError | null = null;
    const older = t.app.uploadModuleFile(owner, (e: ServiceError | null) => (first = e));
    older.write({ moduleFile: { $case: 'moduleFileInfo', value: info }, writeOffset: 0 });
    older.write({ moduleFile: { $case: 'file', value: file.subarray(0, 1000) }, writeOffset: 0 });
    await new Promise((r) => setTimeout(r, 300));
    const held = await heldEventually(info, 1000);
    expect(held.committedBytes).toBe(1000);
    expect(await uploadFile(t, info, [file.subarray(1000)], owner, { writeOffset: 1000 })).toMatchObject({ sizeBytes: 3000, sha256: sha(file) });
    for (let i = 0; i < 50 && first === null; i++) await new Promise((r) => setTimeout(r, 50));
    expect(first).toMatchObject({ code: status.ABORTED });
  });

  it('accepts versions of every item type (a training script, a model), with no entrypoint needed', async () => {
    const name = fresh('trainer');
    await appCall(t, 'createRegistryItem', { organizationId: orgId, name, type: PackageType.PACKAGE_TYPE_ML_TRAINING }, owner);
    await uploadFile(t, { moduleId: `${orgId}:${name}`, version: '0.1.0', platform: 'linux/any' }, [bytes(100)], owner);
    expect((await appCall(t, 'getRegistryItem', { itemId: `${orgId}:${name}` }, owner)).item).toMatchObject({ status: RegistryItemStatus.REGISTRY_ITEM_STATUS_PUBLISHED, platforms: ['linux/any'] });
  });
});

describe('listing', () => {
  let ns: string;
  let publicOrg: string;
  beforeAll(async () => {
    // An organization with a namespace and items of every visibility, type and status.
    ns = `pub-${Date.now().toString(36)}`;
    publicOrg = (await appCall(t, 'createOrganization', { name: 'Publisher' }, owner)).organization!.id;
    await appCall(t, 'updateOrganization', { orgId: publicOrg, publicNamespace: ns }, owner);
    const item = async (name: string, type: number, vis: number, description = '') => {
      await appCall(t, 'createRegistryItem', { organizationId: publicOrg, name, type }, owner);
      await appCall(t, 'updateRegistryItem', { itemId: `${ns}:${name}`, type, visibility: vis, description }, owner);
    };
    await item('alpha-mod', PackageType.PACKAGE_TYPE_MODULE, Visibility.VISIBILITY_PUBLIC, 'Drives a lidar');
    await item('beta-model', PackageType.PACKAGE_TYPE_ML_MODEL, Visibility.VISIBILITY_PUBLIC, 'Detects pallets');
    await item('gamma-secret', PackageType.PACKAGE_TYPE_MODULE, Visibility.VISIBILITY_PRIVATE, 'Internal lidar tool');
    await item('delta-hidden', PackageType.PACKAGE_TYPE_ARCHIVE, Visibility.VISIBILITY_PUBLIC_UNLISTED);
    await appCall(t, 'updateModule', { moduleId: `${ns}:alpha-mod`, ...MANIFEST, public: true }, owner);
    await uploadFile(t, { moduleId: `${ns}:alpha-mod`, version: '1.0.0', platform: 'linux/arm64' }, [bytes(10)], owner);
    await uploadFile(t, { moduleId: `${ns}:gamma-secret`, version: '1.0.0', platform: 'darwin/any' }, [bytes(10)], owner).catch(() => undefined);
  });

  const names = async (request: object, md: Metadata = owner) => (await appCall(t, 'listRegistryItems', request, md)).items.map((i) => i.name).sort();

  it('filters by organization, type, visibility, platform (os/any both ways), status and search term; an empty list is no filter', async () => {
    expect(await names({ organizationId: publicOrg })).toEqual(['alpha-mod', 'beta-model', 'delta-hidden', 'gamma-secret']);
    expect(await names({ organizationId: publicOrg, types: [PackageType.PACKAGE_TYPE_MODULE] })).toEqual(['alpha-mod', 'gamma-secret']);
    expect(await names({ organizationId: publicOrg, types: [PackageType.PACKAGE_TYPE_MODULE, PackageType.PACKAGE_TYPE_ML_MODEL], visibilities: [Visibility.VISIBILITY_PUBLIC] })).toEqual(['alpha-mod', 'beta-model']);
    expect(await names({ organizationId: publicOrg, platforms: ['linux/any'] })).toEqual(['alpha-mod']);
    expect(await names({ organizationId: publicOrg, platforms: ['linux/arm64'] })).toEqual(['alpha-mod']);
    expect(await names({ organizationId: publicOrg, platforms: ['linux/amd64'] })).toEqual([]);
    expect(await names({ organizationId: publicOrg, platforms: ['darwin/arm64', 'linux/arm64'] })).toEqual(['alpha-mod']);
    expect(await names({ organizationId: publicOrg, platforms: ['windows/any'] })).toEqual([]);
    expect(await names({ organizationId: publicOrg, statuses: [RegistryItemStatus.REGISTRY_ITEM_STATUS_PUBLISHED] })).toEqual(['alpha-mod']);
    expect(await names({ organizationId: publicOrg, statuses: [RegistryItemStatus.REGISTRY_ITEM_STATUS_IN_DEVELOPMENT] })).toEqual(['beta-model', 'delta-hidden', 'gamma-secret']);
    expect(await names({ organizationId: publicOrg, searchTerm: 'LIDAR' })).toEqual(['alpha-mod', 'gamma-secret']);
    expect(await names({ organizationId: publicOrg, searchTerm: '100%_' })).toEqual([]);
    expect(await names({ publicNamespaces: [ns] })).toEqual(['alpha-mod', 'beta-model', 'delta-hidden', 'gamma-secret']);
  });

  it('shows other organizations only their public items: private never, unlisted by id only', async () => {
    expect(await names({ organizationId: publicOrg }, other)).toEqual(['alpha-mod', 'beta-model']);
    expect(await names({ publicNamespaces: [ns] }, other)).toEqual(['alpha-mod', 'beta-model']);
    expect((await appCall(t, 'getRegistryItem', { itemId: `${ns}:delta-hidden` }, other)).item?.name).toBe('delta-hidden');
    await expectError(appCall(t, 'getRegistryItem', { itemId: `${ns}:gamma-secret` }, other), { code: status.NOT_FOUND, reason: 'REGISTRY_ITEM_NOT_FOUND' });
    await expectError(appCall(t, 'getModule', { moduleId: `${ns}:gamma-secret` }, other), { code: status.NOT_FOUND, reason: 'MODULE_NOT_FOUND' });
    expect((await appCall(t, 'getModule', { moduleId: `${ns}:alpha-mod` }, other)).module?.versions).toHaveLength(1);
    // Across organizations: its own items and everyone's public ones.
    const all = (await appCall(t, 'listRegistryItems', {}, other)).items;
    expect(all.every((i) => i.organizationId === otherOrgId || i.visibility === Visibility.VISIBILITY_PUBLIC)).toBe(true);
    expect(all.map((i) => i.name)).toEqual(expect.arrayContaining(['alpha-mod', 'beta-model']));
    // Modules: all for members, the public ones for others; an organization with nothing public is not found.
    expect((await appCall(t, 'listModules', { orgId: publicOrg }, owner)).modules.map((m) => m.name)).toEqual(['alpha-mod', 'gamma-secret']);
    expect((await appCall(t, 'listModules', { orgId: publicOrg }, other)).modules.map((m) => m.name)).toEqual(['alpha-mod']);
    await expectError(appCall(t, 'listModules', { orgId }, other), { code: status.NOT_FOUND, reason: 'ORGANIZATION_NOT_FOUND' });
    await expectError(appCall(t, 'listRegistryItems', { organizationId: orgId }, other), { code: status.NOT_FOUND, reason: 'ORGANIZATION_NOT_FOUND' });
  });

  it('pages with signed tokens; refuses UNSPECIFIED filter values, bad tokens and unknown organizations', async () => {
    const first = await appCall(t, 'listRegistryItems', { organizationId: publicOrg, pageSize: 3 }, owner);
    expect(first.items.map((i) => i.name)).toEqual(['alpha-mod', 'beta-model', 'delta-hidden']);
    const second = await appCall(t, 'listRegistryItems', { organizationId: publicOrg, pageSize: 3, pageToken: first.nextPageToken }, owner);
    expect(second.items.map((i) => i.name)).toEqual(['gamma-secret']);
    expect(second.nextPageToken).toBe('');
    await expectError(appCall(t, 'listRegistryItems', { organizationId: publicOrg, pageToken: first.nextPageToken, types: [2] }, owner), { code: status.INVALID_ARGUMENT, reason: 'PAGE_TOKEN_INVALID' });
    // Another key's token is refused too: it may see other items.
    await expectError(appCall(t, 'listRegistryItems', { organizationId: publicOrg, pageSize: 3, pageToken: first.nextPageToken }, other), { code: status.INVALID_ARGUMENT, reason: 'PAGE_TOKEN_INVALID' });
    await expectError(appCall(t, 'listRegistryItems', { types: [0] }, owner), { code: status.INVALID_ARGUMENT, reason: 'ENUM_VALUE_INVALID', field: 'types[0]' });
    await expectError(appCall(t, 'listRegistryItems', { visibilities: [9 as Visibility] }, owner), { code: status.INVALID_ARGUMENT, reason: 'ENUM_VALUE_INVALID', field: 'visibilities[0]' });
    await expectError(appCall(t, 'listRegistryItems', { statuses: [0] }, owner), { code: status.INVALID_ARGUMENT, reason: 'ENUM_VALUE_INVALID', field: 'statuses[0]' });
    await expectError(appCall(t, 'listRegistryItems', { platforms: ['linux'] }, owner), { code: status.INVALID_ARGUMENT, reason: 'PLATFORM_INVALID', field: 'platforms[0]' });
    await expectError(appCall(t, 'listRegistryItems', { organizationId: '00000000-0000-4000-8000-000000000000' }, owner), { code: status.NOT_FOUND, reason: 'ORGANIZATION_NOT_FOUND' });
  });
});

describe('deleting and apps', () => {
  it('deletes an item with its files, unless a machine part config uses it', async () => {
    const moduleId = await module();
    await uploadFile(t, { moduleId, version: '1.0.0', platform: 'linux/arm64' }, [bytes(50)], owner);
    const rowId = t.db().prepare('SELECT id FROM registry_items WHERE name = ?').pluck().get(moduleId.split(':')[1]) as string;
    expect(existsSync(join(t.dataDir, 'registry', 'files', rowId))).toBe(true);
    const locationId = (await appCall(t, 'createLocation', { orgId, name: fresh('Site') }, owner)).location!.id;
    const robotId = (await appCall(t, 'newRobot', { name: fresh('bot'), locationId }, owner)).id;
    const part = (await appCall(t, 'getRobotParts', { robotId }, owner)).parts[0]!;
    const configure = (robotConfig: Record<string, unknown>) => appCall(t, 'updateRobotPart', { robotPartId: part.id, name: part.name, robotConfig }, owner);
    await configure({ modules: [{ type: 'registry', name: 'lidar', module_id: moduleId, version: '1.0.0' }] });
    expect((await appCall(t, 'getRegistryItem', { itemId: moduleId }, owner)).item?.totalRobotUsage).toBe(1);
    await expectError(appCall(t, 'deleteRegistryItem', { itemId: moduleId }, owner), { code: status.FAILED_PRECONDITION, reason: 'REGISTRY_ITEM_IN_USE', message: /1 machine part/ });
    await configure({});
    await appCall(t, 'deleteRegistryItem', { itemId: moduleId }, owner);
    await expectError(appCall(t, 'getModule', { moduleId }, owner), { code: status.NOT_FOUND, reason: 'MODULE_NOT_FOUND' });
    expect(existsSync(join(t.dataDir, 'registry', 'files', rowId))).toBe(false);
    await expectError(appCall(t, 'deleteRegistryItem', { itemId: moduleId }, owner), { code: status.NOT_FOUND, reason: 'REGISTRY_ITEM_NOT_FOUND' });
  });

  it('counts the parts whose own config names a module, by either id form, as configs are written, machines are made and parts deleted', async () => {
    const ns = `use-${Date.now().toString(36)}`;
    const org = (await appCall(t, 'createOrganization', { name: 'Users Co' }, owner)).organization!.id;
    const { moduleId: nav } = await appCall(t, 'createModule', { orgId: org, name: 'nav' }, owner);
    const { moduleId: arm } = await appCall(t, 'createModule', { orgId: org, name: 'arm' }, owner);
    const usage = async () => {
      const listed = (await appCall(t, 'listRegistryItems', { organizationId: org }, owner)).items;
      const one = async (itemId: string) => (await appCall(t, 'getRegistryItem', { itemId }, owner)).item?.totalRobotUsage;
      // The listing's count (read with the page) and the item's own agree.
      expect(listed.map((i) => [i.name, i.totalRobotUsage])).toEqual([['arm', await one(arm)], ['nav', await one(nav)]]);
      return Object.fromEntries(listed.map((i) => [i.name, i.totalRobotUsage]));
    };
    const locationId = (await appCall(t, 'createLocation', { orgId: org, name: 'Site' }, owner)).location!.id;
    const parts = async (robotId: string) => (await appCall(t, 'getRobotParts', { robotId }, owner)).parts;
    const configure = (p: { id: string; name: string }, robotConfig: Record<string, unknown>) => appCall(t, 'updateRobotPart', { robotPartId: p.id, name: p.name, robotConfig }, owner);
    const entry = (moduleId: string, version = '1.0.0') => ({ type: 'registry', name: moduleId.split(':')[1], module_id: moduleId, version });
    const one = (await parts((await appCall(t, 'newRobot', { name: 'one', locationId }, owner)).id))[0]!;
    const twoId = (await appCall(t, 'newRobot', { name: 'two', locationId }, owner)).id;
    const two = (await parts(twoId))[0]!;
    expect(await usage()).toEqual({ arm: 0, nav: 0 });
    // Named twice in one config: one part.
    await configure(one, { modules: [entry(nav), { ...entry(nav, '2.0.0'), name: 'nav-2' }] });
    await configure(two, { modules: [entry(arm), entry(nav)] });
    expect(await usage()).toEqual({ arm: 1, nav: 2 });
    // Replaced: what the config named before no longer counts; other sections and bad entries never do.
    await configure(one, { modules: [entry(arm)], components: [{ name: 'c', api: 'rdk:component:camera', model: 'x', module_id: nav }] });
    expect(await usage()).toEqual({ arm: 2, nav: 1 });
    // The other id form, once the organization has a namespace (and configs written before it still count).
    await appCall(t, 'updateOrganization', { orgId: org, publicNamespace: ns }, owner);
    await configure(one, { modules: [entry(`${ns}:nav`), entry(arm)] });
    expect(await usage()).toEqual({ arm: 2, nav: 2 });
    // A new part with its config, then gone with its machine.
    const { partId } = await appCall(t, 'newRobotPart', { robotId: twoId, partName: 'two-arm' }, owner);
    await configure({ id: partId, name: 'two-arm' }, { modules: [entry(`${ns}:arm`)] });
    expect(await usage()).toEqual({ arm: 3, nav: 2 });
    await appCall(t, 'deleteRobotPart', { robotPartId: partId }, owner);
    expect(await usage()).toEqual({ arm: 2, nav: 2 });
    await appCall(t, 'deleteRobot', { robotId: twoId }, owner);
    expect(await usage()).toEqual({ arm: 1, nav: 1 });
    // total_robot_usage counts a part's own config (docs/PROTOCOL.md): a fragment naming the module does not add its parts.
    const { fragment } = await appCall(t, 'createFragment', { orgId: org, name: 'uses nav', config: { modules: [entry(nav)] } }, owner);
    await configure(one, { fragments: [fragment!.id] });
    expect(await usage()).toEqual({ arm: 0, nav: 0 });
    await appCall(t, 'deleteRegistryItem', { itemId: `${ns}:nav` }, owner);
  });

  it('answers app content and branding from the latest uploaded version of the module that declares the app; unknown or unseen apps are NOT_FOUND', async () => {
    const ns = `apps-${Date.now().toString(36)}`;
    const appsOrg = (await appCall(t, 'createOrganization', { name: 'App Maker' }, owner)).organization!.id;
    await appCall(t, 'updateOrganization', { orgId: appsOrg, publicNamespace: ns }, owner);
    const { moduleId } = await appCall(t, 'createModule', { orgId: appsOrg, name: 'dashboards' }, owner);
    const app = (entrypoint: string) => ({ name: 'fleet-view', type: AppType.APP_TYPE_MULTI_MACHINE, entrypoint, logoPath: 'logo.svg', customizations: { machine_picker: { fields: { heading: 'Pick' } } }, fragmentIds: [] });
    await appCall(t, 'updateModule', { moduleId, ...MANIFEST, apps: [app('v1/index.html')] }, owner);
    await expectError(appCall(t, 'getAppContent', { publicNamespace: ns, name: 'fleet-view' }, owner), { code: status.NOT_FOUND, reason: 'APP_NOT_FOUND' });
    await uploadFile(t, { moduleId, version: '1.0.0', platform: 'linux/any' }, [bytes(10)], owner);
    await appCall(t, 'updateModule', { moduleId, ...MANIFEST, apps: [app('v2/index.html')] }, owner);
    await uploadFile(t, { moduleId, version: '1.1.0', platform: 'linux/any' }, [bytes(10)], owner);
    const { content } = await appCall(t, 'getAppContent', { publicNamespace: ns, name: 'fleet-view' }, owner);
    expect(content).toMatchObject({ entrypoint: 'v2/index.html', appType: AppType.APP_TYPE_MULTI_MACHINE, public: false, moduleId: `${ns}:dashboards`, version: '1.1.0' });
    expect(content?.blobPath).toMatch(/\/1\.1\.0\/linux\/any$/);
    const { branding } = await appCall(t, 'getAppBranding', { publicNamespace: ns, name: 'fleet-view' }, owner);
    expect(branding).toMatchObject({ logoPath: 'logo.svg', textCustomizations: { machine_picker: { fields: { heading: 'Pick' } } } });
    // A private module's app is not seen by another organization; public, it is.
    await expectError(appCall(t, 'getAppContent', { publicNamespace: ns, name: 'fleet-view' }, other), { code: status.NOT_FOUND, reason: 'APP_NOT_FOUND' });
    await appCall(t, 'updateModule', { moduleId, ...MANIFEST, apps: [app('v2/index.html')], public: true }, owner);
    expect((await appCall(t, 'getAppBranding', { publicNamespace: ns, name: 'fleet-view' }, other)).branding?.logoPath).toBe('logo.svg');
    await expectError(appCall(t, 'getAppContent', { publicNamespace: ns, name: 'nope' }, owner), { code: status.NOT_FOUND, reason: 'APP_NOT_FOUND' });
    await expectError(appCall(t, 'getAppContent', { publicNamespace: 'Bad NS', name: 'x' }, owner), { code: status.INVALID_ARGUMENT, reason: 'NAMESPACE_INVALID' });
  });

  it('needs an organization role for private items: a location owner of the organization does not see them', async () => {
    const moduleId = await module();
    const locationId = (await appCall(t, 'createLocation', { orgId, name: fresh('Yard') }, owner)).location!.id;
    const locOwner = (await scopedKey(t, [{ resourceType: 'location', resourceId: locationId, role: 'owner', organizationId: orgId }])).metadata;
    await expectError(appCall(t, 'getModule', { moduleId }, locOwner), { code: status.NOT_FOUND, reason: 'MODULE_NOT_FOUND' });
    const orgOperator = (await scopedKey(t, [{ resourceType: 'organization', resourceId: orgId, role: 'operator', organizationId: orgId }])).metadata;
    expect((await appCall(t, 'getModule', { moduleId }, orgOperator)).module?.moduleId).toBe(moduleId);
    await expectError(appCall(t, 'updateModule', { moduleId, ...MANIFEST }, orgOperator), { code: status.PERMISSION_DENIED, message: /needs owner on the organization of module/ });
    await expectError(uploadFile(t, { moduleId, version: '9.9.9', platform: 'linux/any' }, [bytes(1)], orgOperator), { code: status.PERMISSION_DENIED });
  });
});

describe('ListRegistryItemVersions', () => {
  it("lists a module's versions as GetModule does, oldest first, with their files", async () => {
    const moduleId = await module();
    for (const [version, platform] of [['1.10.0', 'linux/arm64'], ['1.2.0', 'linux/amd64'], ['1.2.0', 'darwin/arm64'], ['2.0.0', 'linux/any']] as const) {
      await uploadFile(t, { moduleId, version, platform }, [bytes(20, version.length)], owner);
    }
    const { versions } = await appCall(t, 'listRegistryItemVersions', { itemId: moduleId }, owner);
    expect(versions.map((v) => v.version)).toEqual(['1.2.0', '1.10.0', '2.0.0']);
    expect(versions).toEqual((await appCall(t, 'getModule', { moduleId }, owner)).module?.versions);
    expect(versions[0]?.files.map((f) => f.platform)).toEqual(['darwin/arm64', 'linux/amd64']);
    expect(versions[0]?.files[0]).toMatchObject({ sizeBytes: 20, sha256: expect.stringMatching(/^[0-9a-f]{64}$/), url: expect.stringContaining('/1.2.0/darwin/arm64'), uploadedAt: expect.any(Date) });
  });

  it("lists any item's versions: a training script's uploaded version, none for an item in development", async () => {
    const name = fresh('script');
    await appCall(t, 'createRegistryItem', { organizationId: orgId, name, type: PackageType.PACKAGE_TYPE_ML_TRAINING }, owner);
    const itemId = `${orgId}:${name}`;
    expect((await appCall(t, 'listRegistryItemVersions', { itemId }, owner)).versions).toEqual([]);
    const file = bytes(300, 9);
    await uploadFile(t, { moduleId: itemId, version: '0.1.0', platform: 'linux/any' }, [file], owner);
    const [v] = (await appCall(t, 'listRegistryItemVersions', { itemId }, owner)).versions;
    expect(v).toMatchObject({ version: '0.1.0', platforms: ['linux/any'], models: [], entrypoint: '', apps: [] });
    expect(v?.files).toEqual([expect.objectContaining({ platform: 'linux/any', sizeBytes: 300, sha256: sha(file) })]);
  });

  it('answers every listed item with its versions in the listing when asked (include_versions), as ListRegistryItemVersions lists them; never unasked', async () => {
    const org = (await appCall(t, 'createOrganization', { name: 'Scripts Co' }, owner)).organization!.id;
    const script = async (name: string, versions: string[]) => {
      await appCall(t, 'createRegistryItem', { organizationId: org, name, type: PackageType.PACKAGE_TYPE_ML_TRAINING }, owner);
      for (const [i, version] of versions.entries()) await uploadFile(t, { moduleId: `${org}:${name}`, version, platform: i % 2 ? 'linux/any' : 'darwin/arm64' }, [bytes(10 + i)], owner);
      if (versions[0]) await uploadFile(t, { moduleId: `${org}:${name}`, version: versions[0], platform: 'linux/amd64' }, [bytes(7)], owner);
    };
    await script('a-train', ['1.10.0', '1.2.0', '2.0.0']);
    await script('b-train', []);
    await script('c-train', ['0.1.0']);
    const request = { organizationId: org, types: [PackageType.PACKAGE_TYPE_ML_TRAINING], pageSize: 2 };
    const first = await appCall(t, 'listRegistryItems', { ...request, includeVersions: true }, owner);
    const second = await appCall(t, 'listRegistryItems', { ...request, includeVersions: true, pageToken: first.nextPageToken }, owner);
    const listed = [...first.items, ...second.items];
    expect(listed.map((i) => [i.name, i.versions.map((v) => v.version)])).toEqual([['a-train', ['1.2.0', '1.10.0', '2.0.0']], ['b-train', []], ['c-train', ['0.1.0']]]);
    for (const item of listed) expect(item.versions, item.name).toEqual((await appCall(t, 'listRegistryItemVersions', { itemId: item.itemId }, owner)).versions);
    expect(listed[0]!.versions[1]!.files.map((f) => f.platform)).toEqual(['darwin/arm64', 'linux/amd64']);
    expect((await appCall(t, 'listRegistryItems', request, owner)).items.map((i) => i.versions)).toEqual([[], []]);
  });

  it('answers NOT_FOUND for an unknown item or a private one the caller cannot see, INVALID_ARGUMENT for a malformed id', async () => {
    await expectError(appCall(t, 'listRegistryItemVersions', { itemId: `${orgId}:no-such-item` }, owner), { code: status.NOT_FOUND, reason: 'REGISTRY_ITEM_NOT_FOUND', field: 'item_id' });
    const moduleId = await module();
    await expectError(appCall(t, 'listRegistryItemVersions', { itemId: moduleId }, other), { code: status.NOT_FOUND, reason: 'REGISTRY_ITEM_NOT_FOUND' });
    await expectError(appCall(t, 'listRegistryItemVersions', { itemId: 'no-colon' }, owner), { code: status.INVALID_ARGUMENT, reason: 'FIELD_INVALID', field: 'item_id' });
    await expectError(appCall(t, 'listRegistryItemVersions', { itemId: '' }, owner), { code: status.INVALID_ARGUMENT, reason: 'REQUIRED_FIELD_MISSING', field: 'item_id' });
  });
});
