import type { ErrorObject } from 'ajv';
import { findNodeAtLocation, parseTree, visit, type Node } from 'jsonc-parser';
import { configSchema } from './schema';
import { validate } from './validator.generated.js';

/** A path into a JSON value: keys of objects, indexes of arrays. */
export type JsonPath = readonly (string | number)[];

/** Where a value sits in the text; for a property's value, also where its key is. */
export interface Span {
  readonly from: number;
  readonly to: number;
  readonly keyFrom?: number;
  readonly keyTo?: number;
}

/**
 * How problems are placed in the text. Finding where a value is needs a syntax tree, which the
 * editor already keeps (`lezer-locate.ts`, free after the first parse); without one, `textLocator`
 * parses the text again (jsonc-parser), which takes ~130 ms for 1 MiB: so it is only asked when
 * there is a problem to place.
 */
export interface Locator {
  /** The span of the value at `path`, or null when the text has none there. */
  value(path: JsonPath): Span | null;
  /** Where the first syntax error is, when the JSON parser's message does not say. */
  syntaxError(): number | null;
}

/** Something wrong with a config's text, where it is, and how bad: an error blocks a save, a warning does not. */
export interface ConfigProblem {
  readonly from: number;
  readonly to: number;
  readonly severity: 'error' | 'warning';
  readonly message: string;
  /** The place in the config, as people read it (`components[3] "cam-2".model`); '' for the whole text. */
  readonly where: string;
}

/** A locator over the text alone (tests, a text no editor shows). */
export function textLocator(text: string): Locator {
  let root: Node | undefined | null = null;
  return {
    value(path) {
      if (root === null) root = parseTree(text, [], { disallowComments: true, allowTrailingComma: false });
      const node = root && findNodeAtLocation(root, [...path]);
      if (!node) return null;
      const key = node.parent?.type === 'property' ? node.parent.children?.[0] : undefined;
      return { from: node.offset, to: node.offset + node.length, ...(key ? { keyFrom: key.offset, keyTo: key.offset + key.length } : {}) };
    },
    syntaxError() {
      let at: number | null = null;
      visit(text, { onError: (_error, offset) => void (at ??= offset) }, { disallowComments: true, allowTrailingComma: false });
      return at;
    },
  };
}

/**
 * Every problem of `text` as a config: not JSON (where the parser stopped), not an object, and each
 * place the schema (schema.ts) refuses, plus resources named twice in a section (agents refuse the
 * config then, which the schema cannot say). Parsing is JSON.parse (~4 ms for 1 MiB); `locator`
 * is only asked to place a problem found.
 */
export function checkConfig(text: string, locator: Locator = textLocator(text)): ConfigProblem[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return [syntaxProblem(text, e instanceof Error ? e.message : String(e), locator)];
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return [{ from: 0, to: text.length, severity: 'error', message: 'A config is a JSON object, like {"components": []}.', where: '' }];
  }
  const problems: ConfigProblem[] = [];
  if (!validate(value)) {
    for (const error of relevant(validate.errors ?? [])) problems.push(schemaProblem(value, error, locator, text.length));
  }
  problems.push(...duplicateNames(value as Record<string, unknown>, locator, text.length));
  return problems.sort((a, b) => a.from - b.from);
}

function syntaxProblem(text: string, message: string, locator: Locator): ConfigProblem {
  // V8 names the position for most errors; "Unexpected token" instead quotes the text (all of it).
  const position = /at position (\d+)/.exec(message);
  const said = message.replace(/, ".*" is not valid JSON$/s, '').replace(/ in JSON at position \d+.*$/s, '');
  const at = position ? Number(position[1]) : said === 'Unexpected end of JSON input' ? text.length : (locator.syntaxError() ?? text.length);
  const from = Math.min(at, text.length);
  return { from, to: Math.min(from + 1, text.length), severity: 'error', message: `Not valid JSON: ${said}.`, where: '' };
}

/**
 * Ajv reports a failed anyOf/oneOf and also why each of its branches failed: keep the one line
 * that says what is expected, not the branches' (contradictory) complaints.
 */
function relevant(errors: readonly ErrorObject[]): ErrorObject[] {
  const alternatives = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  return errors.filter((e) => !alternatives.some((alt) => alt !== e && e.instancePath.startsWith(alt.instancePath) && e.schemaPath.startsWith(`${alt.schemaPath}/`)));
}

/** `/components/3/model` → ['components', 3, 'model'] (array indexes as numbers, as locators want them). */
function pathOf(value: unknown, pointer: string): (string | number)[] {
  if (pointer === '') return [];
  const path: (string | number)[] = [];
  let at: unknown = value;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const step = Array.isArray(at) ? Number(key) : key;
    path.push(step);
    at = at !== null && typeof at === 'object' ? (at as Record<string | number, unknown>)[step] : undefined;
  }
  return path;
}

/** `components[3] "cam-2".model`: indexes with the resource's name when it has one, so the place is recognisable. */
export function describePath(value: unknown, path: JsonPath): string {
  let out = '';
  let at: unknown = value;
  for (const step of path) {
    at = at !== null && typeof at === 'object' ? (at as Record<string | number, unknown>)[step] : undefined;
    if (typeof step === 'number') {
      const name = at !== null && typeof at === 'object' && !Array.isArray(at) ? ((at as Record<string, unknown>).name ?? (at as Record<string, unknown>).id) : undefined;
      out += `[${step}]${typeof name === 'string' ? ` "${name}"` : ''}`;
    } else out += `${out === '' ? '' : '.'}${/^[A-Za-z_$][\w$]*$/.test(step) ? step : JSON.stringify(step)}`;
  }
  return out;
}

/** Beyond this many characters a problem's value is marked by its first character only. */
const LONG_SPAN = 120;

function schemaProblem(value: unknown, error: ErrorObject, locator: Locator, end: number): ConfigProblem {
  const path = pathOf(value, error.instancePath);
  const where = describePath(value, path);
  const message = `${where === '' ? 'The config' : where} ${say(error)}.`;
  const problem = (span: Span | null, key = false): ConfigProblem => {
    if (!span) return { from: 0, to: Math.min(1, end), severity: 'error', message, where };
    // The key when the problem is the key; a long value (an object of many lines) by its first
    // character, so the underline marks the place instead of every line under it.
    const [from, to] = key && span.keyFrom !== undefined ? [span.keyFrom, span.keyTo ?? span.keyFrom] : [span.from, span.to];
    return { from, to: to - from > LONG_SPAN ? from + 1 : to, severity: 'error', message, where };
  };
  if (error.keyword === 'additionalProperties') {
    const extra = String((error.params as { additionalProperty?: string }).additionalProperty);
    return problem(locator.value([...path, extra]), true);
  }
  return problem(locator.value(path));
}

/** What ajv found, as a sentence about the value (the place comes first). */
function say(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  const description = schemaDescription(error.schemaPath);
  switch (error.keyword) {
    case 'required':
      return `needs "${String(params.missingProperty)}"`;
    case 'type':
      return `must be ${article(String(params.type).replace(',', ' or '))}`;
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'pattern':
      return description ? `is not in the expected form: ${lower(description)}` : `must match ${String(params.pattern)}`;
    case 'minLength':
      return Number(params.limit) === 1 ? 'must not be empty' : `must be at least ${String(params.limit)} characters`;
    case 'maxLength':
      return `must be at most ${String(params.limit)} characters`;
    case 'anyOf':
      return error.schemaPath.includes('/items/') ? 'needs "api" (or the older "type")' : 'does not match any allowed form';
    case 'oneOf':
      return 'must be a fragment id, or an object {"id", "version", "prefix"}';
    case 'additionalProperties':
      return `cannot hold "${String(params.additionalProperty)}"`;
    case 'minProperties':
    case 'maxProperties':
      return 'must hold exactly one of "$set" or "$unset"';
    default:
      return error.message ?? 'is not valid';
  }
}

/** The `description` of the schema a keyword sits in (`#/properties/x/pattern` → x's), from schema.ts. */
function schemaDescription(schemaPath: string): string | undefined {
  let at: unknown = configSchema;
  for (const step of schemaPath.replace(/^#\//, '').split('/').slice(0, -1)) {
    at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[step.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  }
  const description = at !== null && typeof at === 'object' ? (at as { description?: unknown }).description : undefined;
  return typeof description === 'string' ? description : undefined;
}

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);
const lower = (s: string) => s.charAt(0).toLowerCase() + s.slice(1).replace(/\.$/, '');

/** Sections whose entries agents look up by name: a second entry of a name is refused by them. */
const NAMED_SECTIONS = ['components', 'services', 'modules', 'packages'] as const;

function duplicateNames(config: Record<string, unknown>, locator: Locator, end: number): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const section of NAMED_SECTIONS) {
    const entries = config[section];
    if (!Array.isArray(entries)) continue;
    const first = new Map<string, number>();
    entries.forEach((entry: unknown, i) => {
      const name = entry !== null && typeof entry === 'object' ? (entry as Record<string, unknown>).name : undefined;
      if (typeof name !== 'string') return;
      const earlier = first.get(name);
      if (earlier === undefined) return void first.set(name, i);
      const span = locator.value([section, i, 'name']);
      problems.push({
        from: span?.from ?? 0,
        to: span?.to ?? Math.min(1, end),
        severity: 'error',
        message: `${section}[${i}] is named "${name}", like ${section}[${earlier}]: names must be unique in ${section}.`,
        where: `${section}[${i}].name`,
      });
    });
  }
  return problems;
}
