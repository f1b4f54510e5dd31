// The wire contract against the spec: every operation of both spec documents is an RPC of the
// right service, named as the spec names it, with `<Name>Request`/`<Name>Response` messages that
// carry every request field the spec lists; the generated code in proto/gen is up to date.
//
// The spec is read from ../shared/spec beside the repository (as CI checks it out), and the
// protos are read as a descriptor built by buf (a devDependency; works offline), so the test
// needs nothing beyond what the repository already installs.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AppServiceService } from '../proto/gen/fleet/app/v1/app';
import { AuthServiceService } from '../proto/gen/fleet/auth/v1/auth';
import { MLTrainingServiceService } from '../proto/gen/fleet/mltraining/v1/ml_training';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const specDir = resolve(root, '..', 'shared', 'spec');
const FLEET_SPEC = 'fleet-management-interface.md';
const ML_SPEC = 'ml-training-interface.md';

function readSpec(name: string): string {
  const path = join(specDir, name);
  if (!existsSync(path)) {
    throw new Error(`spec document ${path} is missing: the contract test reads the spec from shared/spec beside the repository (${specDir}); check out shared/ next to the repo`);
  }
  return readFileSync(path, 'utf8');
}

// ---- The spec ----

/** The text of the `## <title>` section, up to the next `## ` heading. */
function section(doc: string, title: string): string {
  const start = doc.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`spec has no "## ${title}" section`);
  const rest = doc.slice(start + title.length + 5);
  const end = rest.search(/\n## /);
  return end < 0 ? rest : rest.slice(0, end);
}

/** Removes parenthesized asides (innermost first), where the spec puts types, defaults and notes. */
function stripParens(text: string): string {
  let previous: string;
  let current = text;
  do {
    previous = current;
    current = current.replace(/\([^()]*\)/g, ' ');
  } while (current !== previous);
  return current;
}

const SNAKE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

interface SpecOperation {
  readonly name: string;
  /** snake_case request fields the spec lists. */
  readonly fields: readonly string[];
}

/**
 * Operations of the fleet document: the first column of the Endpoints tables. Request cells are
 * `field req; field opt (…); a, b (all req); x opt and y opt`. Every piece must parse as a field
 * or be one of the known prose pieces below, so a spec change that this parser misreads fails
 * loudly instead of silently checking less.
 */
function fleetOperations(doc: string): SpecOperation[] {
  const prose = [/^none$/, /^same five fields as AddRole$/, /^camelCase client/];
  const ops: SpecOperation[] = [];
  const unparsed: string[] = [];
  for (const line of section(doc, 'Endpoints').split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    // A table row is `| Operation | Request | Response | Error conditions |`.
    if (cells.length < 6 || !/^[A-Z][A-Za-z]+$/.test(cells[1] ?? '') || cells[1] === 'Operation') continue;
    const name = cells[1] ?? '';
    const fields: string[] = [];
    for (const clause of stripParens(cells[2] ?? '').split(';')) {
      if (prose.some((p) => p.test(clause.trim()))) continue;
      for (const piece of clause.split(/,|\band\b/)) {
        const text = piece.trim();
        if (text === '') continue;
        const field = /^([a-z][a-z0-9_]*)(?:\s+(?:req|opt))?$/.exec(text)?.[1];
        if (field !== undefined && SNAKE.test(field)) fields.push(field);
        else unparsed.push(`${name}: "${text}"`);
      }
    }
    ops.push({ name, fields });
  }
  if (unparsed.length > 0) throw new Error(`request pieces of the fleet spec this test cannot read: ${unparsed.join('; ')}`);
  // "RemoveRole | same five fields as AddRole".
  const addRole = ops.find((o) => o.name === 'AddRole');
  return ops.map((o) => (o.name === 'RemoveRole' && o.fields.length === 0 && addRole ? { name: o.name, fields: addRole.fields } : o));
}

/** Operations of the ML document: the `### Name` headings under Endpoints, with their `- Request:` line. */
function mlOperations(doc: string): SpecOperation[] {
  const parts = section(doc, 'Endpoints').split(/^### /m).slice(1);
  return parts.map((part) => {
    const name = part.slice(0, part.indexOf('\n')).trim();
    const request = /^- Request:(.*)$/m.exec(part)?.[1];
    if (request === undefined) throw new Error(`ML spec operation ${name} has no "- Request:" line`);
    const fields = stripParens(request)
      .split(/[,;]/)
      .map((p) => p.replace(/\.\s*$/, '').trim())
      // Single snake_case words are fields; longer pieces are prose about the field before them.
      .filter((p) => SNAKE.test(p));
    return { name, fields };
  });
}

/** First column of the ML document's Purpose table (`| Operation | Purpose |`). */
function mlPurposeTable(doc: string): string[] {
  return section(doc, 'What the service does')
    .split('\n')
    .map((line) => /^\|\s*([A-Z][A-Za-z]+)\s*\|/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined && name !== 'Operation');
}

/** UPPER_SNAKE enum value names the Enumerations tables list (asides in parentheses left out). */
function specEnumValues(doc: string): string[] {
  const text = /### Enumerations\n([\s\S]*?)(?:\n#|\nEnumeration members)/.exec(doc)?.[1] ?? '';
  return [...stripParens(text).matchAll(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g)].map((m) => m[0]);
}

/** `NAME (numeric N in camelCase clients)`: numbers the spec pins. */
function specEnumNumbers(doc: string): Map<string, number> {
  return new Map([...doc.matchAll(/\b([A-Z][A-Z0-9_]+) \(numeric (\d+) in camelCase clients\)/g)].map((m) => [m[1] ?? '', Number(m[2])]));
}

const fleetDoc = readSpec(FLEET_SPEC);
const mlDoc = readSpec(ML_SPEC);
const fleetOps = fleetOperations(fleetDoc);
const mlOps = mlOperations(mlDoc);

// Request fields of the spec that are client-side on purpose (docs/PROTOCOL.md, "Client-side
// defaults"): the client writes the answer to the file `dest`, indented by `indent` spaces.
const CLIENT_SIDE: Readonly<Record<string, readonly string[]>> = {
  GetRobotPart: ['dest', 'indent'],
  GetRobotPartLogs: ['dest'],
};
// camelCase-only names of the spec are not wire fields and are not checked here: makePublic
// (UpdateFragment, the camelCase form of the deprecated `public`), the old/new Authorization
// objects camelCase clients pass to ChangeRole (sent flattened as old_*/new_*), a Visibility
// passed to UpdateModule instead of `public`, and the camelCase spellings of snake_case fields
// (organizationId, robotPartId, datasetId, …), which are the same fields.

// ---- The protos, as a descriptor ----

interface FieldDescriptor {
  readonly name: string;
  readonly number: number;
  readonly label?: string;
  readonly type?: string;
  readonly typeName?: string;
  readonly proto3Optional?: boolean;
}
interface MessageDescriptor {
  readonly name: string;
  readonly field?: readonly FieldDescriptor[];
}
interface EnumDescriptor {
  readonly name: string;
  readonly value: readonly { readonly name: string; readonly number: number }[];
}
interface MethodDescriptor {
  readonly name: string;
  readonly inputType: string;
  readonly outputType: string;
  readonly clientStreaming?: boolean;
  readonly serverStreaming?: boolean;
}
interface ServiceDescriptor {
  readonly name: string;
  readonly method?: readonly MethodDescriptor[];
}
interface FileDescriptor {
  readonly name: string;
  readonly package?: string;
  readonly messageType?: readonly MessageDescriptor[];
  readonly enumType?: readonly EnumDescriptor[];
  readonly service?: readonly ServiceDescriptor[];
  readonly sourceCodeInfo?: { readonly location?: readonly { readonly path?: readonly number[]; readonly leadingComments?: string }[] };
}

function buildDescriptor(): FileDescriptor[] {
  const buf = join(root, 'node_modules', '.bin', 'buf');
  const result = spawnSync(buf, ['build', '-o', '-#format=json'], { cwd: join(root, 'proto'), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 60_000 });
  if (result.status !== 0) throw new Error(`buf build failed (${result.status ?? result.signal}): ${result.stderr || String(result.error)}`);
  return (JSON.parse(result.stdout) as { file: FileDescriptor[] }).file;
}

const files = buildDescriptor();
const ours = files.filter((f) => f.package?.startsWith('fleet.') === true);
const messages = new Map<string, MessageDescriptor>(ours.flatMap((f) => (f.messageType ?? []).map((m) => [`.${f.package ?? ''}.${m.name}`, m] as const)));
const enums = new Map<string, EnumDescriptor>(ours.flatMap((f) => (f.enumType ?? []).map((e) => [`.${f.package ?? ''}.${e.name}`, e] as const)));

function service(pkg: string, name: string): { file: FileDescriptor; index: number; service: ServiceDescriptor } {
  for (const file of ours) {
    const index = (file.service ?? []).findIndex((s) => s.name === name);
    const found = file.service?.[index];
    if (file.package === pkg && found !== undefined) return { file, index, service: found };
  }
  throw new Error(`no service ${pkg}.${name} in proto/`);
}

function message(fullName: string): MessageDescriptor {
  const m = messages.get(fullName);
  if (m === undefined) throw new Error(`no message ${fullName} in proto/`);
  return m;
}

function field(fullName: string, name: string): FieldDescriptor {
  const f = message(fullName).field?.find((x) => x.name === name);
  if (f === undefined) throw new Error(`${fullName} has no field ${name}`);
  return f;
}

interface GeneratedMethod {
  readonly path: string;
  readonly requestStream: boolean;
  readonly responseStream: boolean;
}

const STREAMING: Readonly<Record<string, { requestStream: boolean; responseStream: boolean }>> = {
  TailRobotPartLogs: { requestStream: false, responseStream: true },
  UploadModuleFile: { requestStream: true, responseStream: false },
};

/** Asserts `ops` are exactly the methods of the service, in the generated code and in the descriptor. */
/**
 * RPCs the contract adds to the spec's operations (backwards compatible within v1), each described
 * in docs/PROTOCOL.md: resumable uploads need a way to ask what the service holds, fragment tags a
 * way to be set, and an invite a way to be accepted.
 */
const ADDED_RPCS: Readonly<Record<string, readonly string[]>> = {
  'fleet.app.v1.AppService': ['GetModuleFileUpload', 'ListRegistryItemVersions', 'SetFragmentTag', 'DeleteFragmentTag', 'AcceptOrganizationInvite'],
  'fleet.mltraining.v1.MLTrainingService': ['ListTrainingDatasets', 'ListModelVersions'],
};

function checkService(pkg: string, serviceName: string, generated: Readonly<Record<string, GeneratedMethod>>, ops: readonly SpecOperation[]): void {
  const { service: svc } = service(pkg, serviceName);
  const methods = svc.method ?? [];
  const generatedMethods = Object.values(generated);
  const added = ADDED_RPCS[`${pkg}.${serviceName}`] ?? [];
  const names = [...ops.map((o) => o.name), ...added];
  expect(generatedMethods.map((m) => m.path).sort()).toEqual(names.map((name) => `/${pkg}.${serviceName}/${name}`).sort());
  expect(methods.map((m) => m.name).sort()).toEqual([...names].sort());
  const protocol = readFileSync(join(root, 'docs', 'PROTOCOL.md'), 'utf8');
  for (const name of added) expect(protocol, `${name} is described in docs/PROTOCOL.md`).toContain(`\`${name}(`);
  for (const op of ops) {
    const gen = generatedMethods.find((m) => m.path === `/${pkg}.${serviceName}/${op.name}`);
    expect(gen, `${op.name} in the generated ${serviceName}Service`).toBeDefined();
    const streaming = STREAMING[op.name] ?? { requestStream: false, responseStream: false };
    expect({ requestStream: gen?.requestStream, responseStream: gen?.responseStream }, `${op.name} streaming`).toEqual(streaming);
    const method = methods.find((m) => m.name === op.name);
    expect(method?.inputType, `${op.name} request`).toBe(`.${pkg}.${op.name}Request`);
    expect(method?.outputType, `${op.name} response`).toBe(`.${pkg}.${op.name}Response`);
    expect({ requestStream: method?.clientStreaming ?? false, responseStream: method?.serverStreaming ?? false }).toEqual(streaming);
  }
}

/** Asserts every request field the spec lists for each operation is a field of `<Name>Request`. */
function checkRequestFields(pkg: string, ops: readonly SpecOperation[]): void {
  const missing: string[] = [];
  for (const op of ops) {
    const request = message(`.${pkg}.${op.name}Request`);
    const names = new Set((request.field ?? []).map((f) => f.name));
    const clientSide = CLIENT_SIDE[op.name] ?? [];
    for (const f of op.fields) {
      if (clientSide.includes(f)) expect(names.has(f), `${op.name}.${f} is client-side and must not be on the wire`).toBe(false);
      else if (!names.has(f)) missing.push(`${op.name}Request.${f}`);
    }
  }
  expect(missing, 'request fields the spec lists but the protos lack').toEqual([]);
}

describe('the spec documents, as this test reads them', () => {
  it('name 83 fleet operations and 6 ML training operations, each once', () => {
    expect(fleetOps).toHaveLength(83);
    expect(new Set(fleetOps.map((o) => o.name)).size).toBe(83);
    expect(fleetOps[0]?.name).toBe('GetUserIDByEmail');
    expect(fleetOps.at(-1)?.name).toBe('GetAppBranding');
    expect(fleetOps.map((o) => o.name)).toContain('LocationAuth');
    expect(mlOps).toHaveLength(6);
    expect(new Set(mlOps.map((o) => o.name)).size).toBe(6);
    expect([...mlPurposeTable(mlDoc)].sort()).toEqual(mlOps.map((o) => o.name).sort());
  });

  it('yield request fields for the operations that have them', () => {
    // A sample, so that a parser that silently reads nothing cannot pass the field checks.
    const fieldsOf = (name: string) => [...fleetOps, ...mlOps].find((o) => o.name === name)?.fields;
    expect(fieldsOf('UpdateOrganization')).toEqual(['org_id', 'name', 'public_namespace', 'region', 'cid', 'default_fragments']);
    expect(fieldsOf('GetRobotPartLogs')).toEqual(['robot_part_id', 'filter', 'log_levels', 'num_log_entries', 'start', 'end', 'dest', 'page_token', 'limit', 'source']);
    expect(fieldsOf('RemoveRole')).toEqual(['org_id', 'identity_id', 'role', 'resource_type', 'resource_id']);
    expect(fieldsOf('ChangeRole')).toHaveLength(9);
    expect(fieldsOf('ListOrganizations')).toEqual([]);
    expect(fieldsOf('SubmitTrainingJob')).toEqual(['org_id', 'dataset_id', 'model_name', 'model_version', 'model_type', 'tags']);
    expect(fieldsOf('ListTrainingJobs')).toEqual(['org_id', 'status']);
  });
});

describe('fleet.app.v1.AppService', () => {
  it('has exactly the operations of the fleet spec, named as the spec names them, with <Name>Request/<Name>Response', () => {
    checkService('fleet.app.v1', 'AppService', AppServiceService, fleetOps);
  });

  it('carries every request field the fleet spec lists, under its snake_case name', () => {
    checkRequestFields('fleet.app.v1', fleetOps);
  });
});

describe('fleet.mltraining.v1.MLTrainingService', () => {
  it('has exactly the operations of the ML training spec, with <Name>Request/<Name>Response', () => {
    checkService('fleet.mltraining.v1', 'MLTrainingService', MLTrainingServiceService, mlOps);
  });

  it('carries every request field the ML training spec lists', () => {
    checkRequestFields('fleet.mltraining.v1', mlOps);
  });
});

describe('fleet.auth.v1.AuthService', () => {
  it('has Authenticate(entity, credentials{type, payload}) -> access_token', () => {
    expect(Object.values(AuthServiceService).map((m) => m.path)).toEqual(['/fleet.auth.v1.AuthService/Authenticate']);
    expect(message('.fleet.auth.v1.AuthenticateRequest').field?.map((f) => f.name)).toEqual(['entity', 'credentials']);
    expect(message('.fleet.auth.v1.Credentials').field?.map((f) => f.name)).toEqual(['type', 'payload']);
    expect(message('.fleet.auth.v1.AuthenticateResponse').field?.map((f) => f.name)).toEqual(['access_token']);
  });
});

describe('wire details the spec and the issue pin', () => {
  it('every RPC carries a doc comment', () => {
    const undocumented: string[] = [];
    for (const [pkg, name] of [['fleet.app.v1', 'AppService'], ['fleet.mltraining.v1', 'MLTrainingService'], ['fleet.auth.v1', 'AuthService']] as const) {
      const { file, index, service: svc } = service(pkg, name);
      (svc.method ?? []).forEach((m, i) => {
        const location = file.sourceCodeInfo?.location?.find((l) => l.path?.join('.') === `6.${index}.2.${i}`);
        if ((location?.leadingComments ?? '').trim() === '') undocumented.push(`${name}/${m.name}`);
      });
    }
    expect(undocumented).toEqual([]);
  });

  it('has every enum value the spec names, with the numbers it pins', () => {
    const values = new Map([...enums.values()].flatMap((e) => e.value.map((v) => [v.name, v.number] as const)));
    const named = [...specEnumValues(fleetDoc), ...specEnumValues(mlDoc)];
    expect(named).toContain('PACKAGE_TYPE_ML_MODEL');
    expect(named).toContain('MODEL_TYPE_OBJECT_DETECTION');
    expect(named.filter((n) => !values.has(n))).toEqual([]);
    const pinned = specEnumNumbers(fleetDoc);
    expect([...pinned.keys()].sort()).toEqual(['PACKAGE_TYPE_ML_MODEL', 'VISIBILITY_PRIVATE']);
    for (const [name, number] of pinned) expect(values.get(name), name).toBe(number);
    for (const e of enums.values()) expect(e.value.find((v) => v.number === 0)?.name, `${e.name} zero value`).toMatch(/_UNSPECIFIED$/);
    expect(enums.get('.fleet.mltraining.v1.TrainingStatus')?.value.map((v) => v.name)).toEqual(
      ['UNSPECIFIED', 'PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELING', 'CANCELED'].map((s) => `TRAINING_STATUS_${s}`),
    );
    const fragmentVisibility = enums.get('.fleet.app.v1.FragmentVisibility')?.value.map((v) => v.name);
    expect(fragmentVisibility).toEqual(expect.arrayContaining(['FRAGMENT_VISIBILITY_PRIVATE', 'FRAGMENT_VISIBILITY_PUBLIC']));
  });

  it('uses proto3 optional where presence carries meaning (omitted = unchanged or a non-zero default)', () => {
    const present: readonly [string, string][] = [
      ['UpdateOrganizationRequest', 'name'],
      ['UpdateOrganizationRequest', 'public_namespace'],
      ['UpdateOrganizationRequest', 'region'],
      ['UpdateOrganizationRequest', 'cid'],
      ['UpdateLocationRequest', 'name'],
      ['UpdateLocationRequest', 'parent_location_id'],
      ['UpdateLocationRequest', 'region'],
      ['UpdateFragmentRequest', 'visibility'],
      ['UpdateFragmentRequest', 'public'],
      ['ListFragmentsRequest', 'show_public'],
      ['CreateOrganizationInviteRequest', 'send_email_invite'],
      ['TailRobotPartLogsRequest', 'errors_only'],
      ['GetRobotPartLogsRequest', 'num_log_entries'],
    ];
    for (const [msg, name] of present) expect(field(`.fleet.app.v1.${msg}`, name).proto3Optional, `${msg}.${name}`).toBe(true);
    // A repeated field has no presence: UpdateOrganization wraps the list in a message.
    expect(field('.fleet.app.v1.UpdateOrganizationRequest', 'default_fragments').type).toBe('TYPE_MESSAGE');
  });

  it('keeps client-default location ids plain strings the client fills in', () => {
    for (const msg of ['GetLocation', 'LocationAuth', 'CreateLocationSecret', 'DeleteLocationSecret', 'ListRobots', 'NewRobot', 'UpdateRobot']) {
      const f = field(`.fleet.app.v1.${msg}Request`, 'location_id');
      expect({ type: f.type, optional: f.proto3Optional ?? false }, msg).toEqual({ type: 'TYPE_STRING', optional: false });
    }
  });

  it('carries JSON objects as Struct and times as Timestamp', () => {
    const typeOf = (msg: string, name: string) => field(`.fleet.app.v1.${msg}`, name).typeName;
    for (const msg of ['UpdateOrganizationMetadataRequest', 'UpdateLocationMetadataRequest', 'UpdateRobotMetadataRequest', 'UpdateRobotPartMetadataRequest']) {
      expect(typeOf(msg, 'metadata')).toBe('.google.protobuf.Struct');
    }
    expect(typeOf('UpdateRobotPartRequest', 'robot_config')).toBe('.google.protobuf.Struct');
    expect(typeOf('CreateFragmentRequest', 'config')).toBe('.google.protobuf.Struct');
    expect(typeOf('UpdateFragmentRequest', 'config')).toBe('.google.protobuf.Struct');
    expect(typeOf('UpdateRobotPartRequest', 'last_known_update')).toBe('.google.protobuf.Timestamp');
    expect(typeOf('UpdateFragmentRequest', 'last_known_update')).toBe('.google.protobuf.Timestamp');
    expect(typeOf('GetRobotPartLogsRequest', 'start')).toBe('.google.protobuf.Timestamp');
    expect(typeOf('RobotPart', 'last_access')).toBe('.google.protobuf.Timestamp');
  });

  it('sends UploadModuleFile as module_file_info first, then file chunks, in one oneof', () => {
    const info = field('.fleet.app.v1.UploadModuleFileRequest', 'module_file_info');
    const file = field('.fleet.app.v1.UploadModuleFileRequest', 'file');
    expect(info.typeName).toBe('.fleet.app.v1.ModuleFileInfo');
    expect(file.type).toBe('TYPE_BYTES');
    expect(message('.fleet.app.v1.ModuleFileInfo').field?.map((f) => f.name)).toEqual(['module_id', 'version', 'platform']);
  });

  it('keeps Organization as the service already implements it (fields 1-7)', () => {
    expect(message('.fleet.app.v1.Organization').field?.slice(0, 7).map((f) => `${f.number}:${f.name}`)).toEqual([
      '1:id',
      '2:name',
      '3:created_on',
      '4:public_namespace',
      '5:region',
      '6:cid',
      '7:default_fragments',
    ]);
  });
});

describe('proto/gen', () => {
  it('is what `npm run gen:proto` generates from proto/ now', () => {
    const result = spawnSync(process.execPath, [join(root, 'scripts', 'gen-proto.mjs'), '--check'], { cwd: root, encoding: 'utf8', timeout: 110_000 });
    expect(result.status, `gen-proto --check: ${result.stderr}${result.stdout}`).toBe(0);
  }, 120_000);
});
