/**
 * The JSON Schema of a part's (or a fragment's) config: the sections the app knows, each with what
 * the machine's agent reads from it. It checks the shape of what is known and nothing more: every
 * object allows keys it does not name (agents of other versions, modules' own attributes), so a
 * config the schema does not understand is never refused for that alone.
 *
 * The editor shows each violation inline (`check.ts`) and completes keys from the `properties`
 * below (`completion.ts`). The renderer's CSP forbids `eval`, so ajv cannot compile this at run
 * time: `validator.generated.js` is ajv's standalone code for it, made by
 * `npm run gen:config-validator` (a unit test fails when it is stale).
 *
 * Sections (the spec's "Machine part": `robot_config`, a JSON object; the fragment rules of
 * docs/PROTOCOL.md §11):
 * - `components`: the hardware and software parts the agent drives (cameras, motors, bases…);
 * - `services`: higher-level capabilities over components (SLAM, navigation, vision…);
 * - `modules`: the registry modules (or local executables) that provide further models;
 * - `packages`: registry packages (ML models, maps…) downloaded to the machine;
 * - `processes`: programs the agent starts and keeps running beside itself;
 * - `fragments`: shared config blocks merged into this one (an id, or `{id, version, prefix}`);
 * - `fragment_mods`: this machine's changes to what its fragments bring (`$set`/`$unset`);
 * - `network`: how the agent listens (address, name, TLS files);
 * - `auth`: how clients of the agent sign in (handlers, TLS entities).
 */

/** A JSON Schema (draft-07), as plain data: what ajv compiles and completion reads. */
export interface JsonSchema {
  readonly $schema?: string;
  readonly $id?: string;
  readonly $ref?: string;
  readonly definitions?: Readonly<Record<string, JsonSchema>>;
  readonly title?: string;
  readonly description?: string;
  readonly type?: string | readonly string[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly additionalProperties?: boolean | JsonSchema;
  readonly propertyNames?: JsonSchema;
  readonly required?: readonly string[];
  readonly items?: JsonSchema;
  readonly oneOf?: readonly JsonSchema[];
  readonly anyOf?: readonly JsonSchema[];
  readonly enum?: readonly (string | number | boolean | null)[];
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minProperties?: number;
  readonly maxProperties?: number;
  readonly minimum?: number;
  readonly maximum?: number;
}

/** A name agents use to find a resource: not empty, no spaces (they appear in APIs and logs). */
const resourceName: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 200,
  pattern: '^[^\\s]+$',
  description: 'Unique among the resources of the machine; no spaces.',
};

/** `namespace:type:subtype` or `namespace:family:name`: the triple both APIs and models are named by. */
const triplet = (what: string): JsonSchema => ({
  type: 'string',
  pattern: '^[A-Za-z0-9_.-]+:[A-Za-z0-9_.-]+:[A-Za-z0-9_.-]+$',
  description: `${what}, as namespace:family:name.`,
});

/**
 * A model: the triple, or a bare built-in name ("webcam", "ur5e") as older configs write it — the
 * agent still takes those, and a config read from the service must not show as broken for it.
 */
const modelName: JsonSchema = {
  type: 'string',
  pattern: '^[A-Za-z0-9_.-]+(:[A-Za-z0-9_.-]+:[A-Za-z0-9_.-]+)?$',
  description: "The model that implements the API, e.g. rdk:builtin:webcam, a module's model, or a built-in's bare name (webcam).",
};

/** What components and services share: a name, an API, a model, its attributes, what it waits for. */
const resourceProperties: Readonly<Record<string, JsonSchema>> = {
  name: resourceName,
  api: triplet('The API the resource implements, e.g. rdk:component:camera'),
  type: { type: 'string', minLength: 1, description: 'The older form of the API: its subtype (camera, motor…); `api` replaces it.' },
  namespace: { type: 'string', minLength: 1, description: 'The older form of the API: its namespace (rdk); `api` replaces it.' },
  model: modelName,
  attributes: { type: 'object', description: "The model's own settings, as its documentation names them." },
  depends_on: { type: 'array', items: { type: 'string', minLength: 1 }, description: 'Names of resources that must be running before this one starts.' },
  log_configuration: {
    type: 'object',
    properties: { level: { type: 'string', enum: ['debug', 'info', 'warn', 'error'], description: 'The lowest level this resource logs.' } },
    description: "This resource's logging.",
  },
};

/** A position and orientation of a component relative to its parent frame. */
const frame: JsonSchema = {
  type: 'object',
  required: ['parent'],
  properties: {
    parent: { type: 'string', minLength: 1, description: 'The frame this one is placed in: another component, or "world".' },
    translation: {
      type: 'object',
      properties: { x: { type: 'number' }, y: { type: 'number' }, z: { type: 'number' } },
      description: 'Offset from the parent, in millimetres.',
    },
    orientation: {
      type: 'object',
      properties: { type: { type: 'string', enum: ['ov_degrees', 'ov_radians', 'euler_angles', 'axis_angles', 'quaternion'] }, value: { type: 'object' } },
      description: 'Rotation relative to the parent.',
    },
    geometry: { type: 'object', description: 'The shape the component occupies, for motion planning.' },
  },
  description: "Where the component sits in the machine's frame system.",
};

/** An environment: variable names to string values (numbers must be quoted: the agent passes strings). */
const environment: JsonSchema = {
  type: 'object',
  additionalProperties: { type: 'string' },
  description: 'Environment variables, name → value (strings only).',
};

/** The config schema; each section's `description` says what it holds, as completion shows it. */
export const configSchema: JsonSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'https://fleet-desk.example/schemas/robot-config.json',
  title: 'Part config',
  description: "A machine part's config (robot_config), or a fragment's: a JSON object of sections.",
  type: 'object',
  properties: {
    /**
     * `components`: the parts the agent drives, each `{name, api, model, attributes, depends_on,
     * frame}`. `name` is how every other section refers to it; `api` (or the older `type` +
     * `namespace`) says what it is and `model` which implementation (built in, or from a module
     * listed in `modules`); `attributes` are the model's own and not checked here.
     */
    components: {
      type: 'array',
      description: 'The hardware and software parts the agent drives: cameras, motors, bases, sensors…',
      items: {
        type: 'object',
        required: ['name'],
        anyOf: [{ required: ['api'] }, { required: ['type'] }],
        properties: {
          ...resourceProperties,
          frame,
          service_configs: {
            type: 'array',
            items: { type: 'object', required: ['type'], properties: { type: { type: 'string', minLength: 1 }, attributes: { type: 'object' } } },
            description: 'Per-service settings of this component (e.g. data capture).',
          },
        },
      },
    },
    /**
     * `services`: capabilities built on components (SLAM, navigation, vision, data capture), shaped
     * like components but without a frame.
     */
    services: {
      type: 'array',
      description: 'Higher-level capabilities over components: SLAM, navigation, vision, data management…',
      items: { type: 'object', required: ['name'], anyOf: [{ required: ['api'] }, { required: ['type'] }], properties: resourceProperties },
    },
    /**
     * `modules`: where models not built into the agent come from — a registry module by
     * `module_id` (`namespace:name`) and `version`, or a `local` one by `executable_path`.
     */
    modules: {
      type: 'array',
      description: 'Modules that provide further models: from the registry (by module_id and version) or a local executable.',
      items: {
        type: 'object',
        required: ['name'],
        properties: {
          type: { type: 'string', enum: ['registry', 'local'], description: 'registry: downloaded by module_id; local: executable_path on the machine.' },
          name: resourceName,
          module_id: { type: 'string', pattern: '^[A-Za-z0-9_.-]+:[A-Za-z0-9_.-]+$', description: 'The registry id, namespace:name (or org-id:name).' },
          version: { type: 'string', minLength: 1, description: 'A version (1.2.3), a range (^1.2), or latest.' },
          executable_path: { type: 'string', minLength: 1, description: 'For a local module: the program to run.' },
          env: environment,
          log_level: { type: 'string', enum: ['debug', 'info', 'warn', 'error'] },
        },
      },
    },
    /** `packages`: registry items the agent downloads (ML models, maps…) by `package` and `version`, under `name`. */
    packages: {
      type: 'array',
      description: 'Registry packages downloaded to the machine: ML models, maps, training scripts…',
      items: {
        type: 'object',
        required: ['name', 'package'],
        properties: {
          name: resourceName,
          package: { type: 'string', minLength: 1, description: 'The registry item: org-id/name or namespace/name.' },
          type: { type: 'string', enum: ['ml_model', 'ml_training', 'module', 'slam_map', 'archive'], description: 'What kind of package it is.' },
          version: { type: 'string', minLength: 1, description: 'A version or latest.' },
        },
      },
    },
    /** `processes`: programs the agent runs beside itself, by `id`: `name` is the program, then `args`, `cwd`, `env`. */
    processes: {
      type: 'array',
      description: 'Programs the agent starts beside itself, restarting them unless one_shot.',
      items: {
        type: 'object',
        required: ['id', 'name'],
        properties: {
          id: { type: 'string', minLength: 1, description: 'Unique among the processes.' },
          name: { type: 'string', minLength: 1, description: 'The program to run.' },
          args: { type: 'array', items: { type: 'string' } },
          cwd: { type: 'string' },
          one_shot: { type: 'boolean', description: 'Run once at start instead of keeping it running.' },
          log: { type: 'boolean', description: "Send the program's output to the machine's logs." },
          env: environment,
        },
      },
    },
    /**
     * `fragments`: shared config blocks merged into this one. An entry is a fragment id (tracks its
     * latest revision) or `{id, version, prefix}`: `version` pins a revision or a tag, `prefix` is
     * put before the names of what the fragment brings. The service resolves them (own config,
     * then fragments depth first with their prefixes, then `fragment_mods`; docs/PROTOCOL.md §11).
     */
    fragments: {
      type: 'array',
      description: 'Shared config blocks merged into this one, depth first, in this order: a fragment id, or {id, version, prefix}.',
      items: {
        oneOf: [
          { type: 'string', minLength: 1, description: 'A fragment id; tracks its latest revision.' },
          {
            type: 'object',
            required: ['id'],
            properties: {
              id: { type: 'string', minLength: 1, description: 'The fragment id.' },
              version: { type: 'string', minLength: 1, description: 'A revision ("3") or a tag ("stable"); absent tracks the latest.' },
              prefix: { type: 'string', minLength: 1, description: "Put before the names of the fragment's resources, so one fragment can be used twice." },
            },
          },
        ],
      },
    },
    /**
     * `fragment_mods`: this machine's changes to what a fragment brings — per `fragment_id`, a list
     * of `{"$set": {path: value}}` / `{"$unset": {path: ""}}`, with dotted paths into the fragment's config.
     */
    fragment_mods: {
      type: 'array',
      description: "This machine's changes to what its fragments bring, applied after them.",
      items: {
        type: 'object',
        required: ['fragment_id', 'mods'],
        properties: {
          fragment_id: { type: 'string', minLength: 1, description: 'The fragment whose config these change.' },
          mods: {
            type: 'array',
            items: {
              type: 'object',
              minProperties: 1,
              maxProperties: 1,
              properties: {
                $set: { type: 'object', description: 'Dotted paths (components.base.attributes.x) → the value to put there.' },
                $unset: { type: 'object', description: 'Dotted paths → "" to remove.' },
              },
              additionalProperties: false,
            },
          },
        },
      },
    },
    /** `network`: how the agent listens — `fqdn`, `bind_address`, TLS files, session heartbeats. */
    network: {
      type: 'object',
      description: 'How the agent listens for clients.',
      properties: {
        fqdn: { type: 'string', description: 'The name clients reach the part by.' },
        bind_address: { type: 'string', description: 'host:port to listen on, e.g. :8080.' },
        tls_cert_file: { type: 'string' },
        tls_key_file: { type: 'string' },
        no_tls: { type: 'boolean' },
        sessions: { type: 'object', properties: { heartbeat_window: { type: 'string', description: 'A duration, e.g. 2s.' } } },
      },
    },
    /** `auth`: how clients sign in to the agent — `handlers` (api-key, web-oauth, external) and TLS entities. */
    auth: {
      type: 'object',
      description: 'How clients of the agent sign in.',
      properties: {
        handlers: {
          type: 'array',
          items: {
            type: 'object',
            required: ['type'],
            properties: {
              type: { type: 'string', enum: ['api-key', 'web-oauth', 'external'], description: 'The kind of credential.' },
              config: { type: 'object', description: "The handler's own settings." },
            },
          },
        },
        tls_auth_entities: { type: 'array', items: { type: 'string' }, description: 'Client certificate names allowed in.' },
        external_auth_config: { type: 'object' },
      },
    },
  },
};

/** The sections the schema documents, in the order the spec lists them (completion offers them so). */
export const configSections: readonly string[] = Object.keys(configSchema.properties ?? {});
