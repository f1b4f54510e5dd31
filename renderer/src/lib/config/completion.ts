import type { Completion, CompletionContext, CompletionResult, CompletionSource } from '@codemirror/autocomplete';
import type { JsonPath } from './check';
import { configSchema, type JsonSchema } from './schema';
import { cursorPlace, type CursorPlace } from './syntax';

/** A model a module provides: the API it implements and its name (`namespace:family:name`). */
export interface ModelChoice {
  readonly api: string;
  readonly model: string;
}

/** A module the editor offers in `modules[].module_id`, with the models it brings for `components[].model`. */
export interface ModuleChoice {
  /** The registry id, `namespace:name`. */
  readonly id: string;
  readonly models: readonly ModelChoice[];
  /** One line shown beside it (a description, a version). */
  readonly detail?: string;
}

/** A fragment the editor offers in `fragments` and `fragment_mods[].fragment_id`. */
export interface FragmentChoice {
  readonly id: string;
  readonly name: string;
  /** One line shown beside it (its organization, visibility). */
  readonly detail?: string;
}

/** What the editor completes from, handed in by the page that knows the registry and the fragments. */
export interface ConfigChoices {
  readonly modules: readonly ModuleChoice[];
  readonly fragments: readonly FragmentChoice[];
  /** Models not from a module of the list (built-in ones), completed like module models. */
  readonly models?: readonly ModelChoice[];
}

/** The schema of the value at `path`, following properties and array items (a oneOf/anyOf's object branch). */
export function schemaAt(path: JsonPath, schema: JsonSchema = configSchema): JsonSchema | null {
  let at: JsonSchema | undefined = schema;
  for (const step of path) {
    if (!at) return null;
    const objectBranch: JsonSchema | undefined = at.oneOf?.find((s) => s.type === 'object' || s.properties);
    if (typeof step === 'number') at = at.items;
    else at = (at.properties ?? objectBranch?.properties)?.[step];
  }
  return at ?? null;
}

/** `['components', 3, 'model']` → 'components.*.model': where a value is, indexes aside. */
const shape = (path: JsonPath) => path.map((step) => (typeof step === 'number' ? '*' : step)).join('.');

/** Distinct, in the order first seen. */
const unique = <T>(items: readonly T[], key: (item: T) => string): T[] => {
  const seen = new Set<string>();
  return items.filter((item) => !seen.has(key(item)) && seen.add(key(item)));
};

interface Offer {
  readonly value: string;
  readonly detail?: string;
  readonly info?: string;
  readonly boost?: number;
  readonly section?: string;
}

/** The values the config's place `path` can take from `choices`, or from the schema's enum. */
export function valueOffers(path: JsonPath, place: Pick<CursorPlace, 'siblings'>, choices: ConfigChoices): Offer[] {
  const models = unique([...choices.modules.flatMap((m) => m.models.map((model) => ({ ...model, module: m.id }))), ...(choices.models ?? []).map((model) => ({ ...model, module: '' }))], (m) => m.model);
  switch (shape(path)) {
    case 'components.*.model':
    case 'services.*.model': {
      // Models of the API the resource names first: a camera's model list is the cameras'.
      const api = place.siblings('api');
      return models.map((m) => ({ value: m.model, detail: m.module || 'built-in', info: m.api, boost: api && m.api === api ? 10 : 0, section: api && m.api === api ? `models of ${api}` : 'other models' }));
    }
    case 'components.*.api':
    case 'services.*.api': {
      const kind = path[0] === 'components' ? ':component:' : ':service:';
      return unique(models, (m) => m.api)
        .filter((m) => m.api.includes(kind))
        .map((m) => ({ value: m.api }));
    }
    case 'modules.*.module_id':
      return choices.modules.map((m) => ({ value: m.id, ...(m.detail ? { detail: m.detail } : {}) }));
    case 'fragments.*':
    case 'fragments.*.id':
    case 'fragment_mods.*.fragment_id':
      return choices.fragments.map((f) => ({ value: f.id, detail: f.name, ...(f.detail ? { info: f.detail } : {}) }));
  }
  const schema = schemaAt(path);
  return (schema?.enum ?? []).filter((v): v is string => typeof v === 'string').map((value) => ({ value }));
}

/** The keys the schema names for the object at `path` (the sections at the top). */
export function keyOffers(path: JsonPath): Offer[] {
  const schema = schemaAt(path);
  const properties = schema?.properties ?? schema?.oneOf?.find((s) => s.properties)?.properties ?? {};
  return Object.entries(properties).map(([key, s], i) => ({ value: key, ...(s.description ? { info: s.description } : {}), boost: -i / 100 }));
}

function option(offer: Offer, place: CursorPlace, kind: 'key' | 'value'): Completion {
  const quoted = JSON.stringify(offer.value);
  // Inside quotes: the text between them; bare: the whole string, and for a key its colon.
  const apply = place.quoted ? quoted.slice(1, -1) : kind === 'key' ? `${quoted}: ` : quoted;
  return {
    label: place.quoted ? offer.value : quoted,
    displayLabel: offer.value,
    apply,
    type: kind === 'key' ? 'property' : 'constant',
    ...(offer.detail ? { detail: offer.detail } : {}),
    ...(offer.info ? { info: offer.info } : {}),
    ...(offer.boost ? { boost: offer.boost } : {}),
    ...(offer.section ? { section: offer.section } : {}),
  };
}

/**
 * A CodeMirror completion source over a config: keys from the schema, enum values, module ids and
 * models, API names and fragment ids from `choices()` (read at each completion, so the lists can
 * change without rebuilding the editor). Inside quotes it completes the text typed so far;
 * elsewhere only when asked (Ctrl+Space) or after a colon.
 */
export function configCompletionSource(choices: () => ConfigChoices): CompletionSource {
  return (context: CompletionContext): CompletionResult | null => {
    const place = cursorPlace(context.state, context.pos);
    if (!place) return null;
    if (!place.quoted && !context.explicit) return null;
    const offers = place.kind === 'key' ? keyOffers(place.path) : valueOffers(place.path, place, choices());
    if (offers.length === 0) return null;
    return {
      from: place.quoted ? place.from : context.pos,
      ...(place.quoted ? { to: place.to } : {}),
      options: offers.map((offer) => option(offer, place, place.kind)),
      validFor: place.quoted ? /^[^"\\]*$/ : undefined,
    };
  };
}
