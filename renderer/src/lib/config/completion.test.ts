import { CompletionContext, type CompletionResult } from '@codemirror/autocomplete';
import { json } from '@codemirror/lang-json';
import { EditorState } from '@codemirror/state';
import { describe, expect, it } from 'vitest';
import { fixtureModules } from '../testing/config-fixtures';
import { configCompletionSource, keyOffers, schemaAt, type ConfigChoices } from './completion';
import { configSections } from './schema';
import { cursorPlace } from './syntax';

/** A state of `doc` with the cursor where `|` is (the bar removed). */
function at(doc: string): { state: EditorState; pos: number } {
  const pos = doc.indexOf('|');
  return { state: EditorState.create({ doc: doc.slice(0, pos) + doc.slice(pos + 1), extensions: [json()] }), pos };
}

const choices: ConfigChoices = {
  modules: fixtureModules.map((m) => ({ id: m.id, models: m.models, detail: 'registry module' })),
  fragments: [
    { id: 'frag-amr-base', name: 'AMR base', detail: 'Acme, private' },
    { id: 'frag-lidar', name: 'Lidar' },
  ],
  models: [{ api: 'rdk:component:camera', model: 'rdk:builtin:webcam' }],
};

function complete(doc: string, explicit = false): CompletionResult | null {
  const { state, pos } = at(doc);
  return configCompletionSource(() => choices)(new CompletionContext(state, pos, explicit)) as CompletionResult | null;
}

const labels = (result: CompletionResult | null) => result?.options.map((o) => o.displayLabel ?? o.label) ?? [];

function place(doc: string) {
  const { state, pos } = at(doc);
  return cursorPlace(state, pos);
}

describe('cursorPlace', () => {
  it('tells a key of an object from a value, with the path to it', () => {
    expect(place('{"components": [{"na|": 1}]}')).toMatchObject({ kind: 'key', path: ['components', 0], quoted: true });
    expect(place('{"components": [{}, {"model": "rdk|"}]}')).toMatchObject({ kind: 'value', path: ['components', 1, 'model'], quoted: true });
    expect(place('{"fragments": ["a", "|"]}')).toMatchObject({ kind: 'value', path: ['fragments', 1] });
    expect(place('{"network": {|}}')).toMatchObject({ kind: 'key', path: ['network'], quoted: false });
    expect(place('{"modules": [{"type": |}]}')).toMatchObject({ kind: 'value', path: ['modules', 0, 'type'], quoted: false });
  });

  it('reads the string siblings of the object it is in', () => {
    const { state, pos } = at('{"components": [{"api": "rdk:component:camera", "model": "|"}]}');
    expect(cursorPlace(state, pos)?.siblings('api')).toBe('rdk:component:camera');
    expect(cursorPlace(state, pos)?.siblings('name')).toBeNull();
  });
});

describe('configCompletionSource', () => {
  it('offers the sections at the top, in the schema\'s order, with what each holds', () => {
    const result = complete('{"|"}');
    expect(labels(result)).toEqual([...configSections]);
    expect(result?.options[0]).toMatchObject({ label: 'components', apply: 'components', type: 'property' });
    expect(result?.options[0]?.info).toMatch(/cameras/);
  });

  it('offers the models of the API the component names first, and every other model after them', () => {
    const result = complete('{"components": [{"name": "c", "api": "rdk:component:camera", "model": "acme|"}]}');
    const cameras = result?.options.filter((o) => o.section === 'models of rdk:component:camera').map((o) => o.label);
    expect(cameras).toEqual(['acme-warehouse:slam:map-view', 'rdk:builtin:webcam']);
    const other = result?.options.find((o) => o.label === 'acme-warehouse:slam:cartographer-lite');
    expect(other).toMatchObject({ detail: 'acme-warehouse:slam', section: 'other models', info: 'rdk:service:slam' });
    expect(other?.boost).toBeUndefined();
  });

  it('offers module ids, API names, fragment ids and enum values where they go', () => {
    expect(labels(complete('{"modules": [{"module_id": "|"}]}'))).toEqual(['acme-warehouse:slam', 'acme-warehouse:wms-bridge', 'northfield-agri:row-nav']);
    expect(labels(complete('{"services": [{"api": "|"}]}'))).toEqual(['rdk:service:slam', 'rdk:service:generic', 'rdk:service:navigation']);
    expect(labels(complete('{"fragments": ["|"]}'))).toEqual(['frag-amr-base', 'frag-lidar']);
    expect(labels(complete('{"fragments": [{"id": "|"}]}'))).toEqual(['frag-amr-base', 'frag-lidar']);
    expect(labels(complete('{"fragment_mods": [{"fragment_id": "fr|"}]}'))).toEqual(['frag-amr-base', 'frag-lidar']);
    expect(labels(complete('{"packages": [{"type": "|"}]}'))).toEqual(['ml_model', 'ml_training', 'module', 'slam_map', 'archive']);
  });

  it('outside quotes, completes only when asked, and brings the quotes (and a key\'s colon)', () => {
    expect(complete('{"modules": [{"type": |}]}')).toBeNull();
    const value = complete('{"modules": [{"type": |}]}', true);
    expect(value?.options[0]).toMatchObject({ label: '"registry"', apply: '"registry"' });
    const key = complete('{"network": {|}}', true);
    expect(key?.options.map((o) => o.apply)).toContain('"bind_address": ');
  });

  it('replaces the whole string it is in, keeping the quotes', () => {
    const { state, pos } = at('{"fragments": ["fr|ag-old"]}');
    const result = configCompletionSource(() => choices)(new CompletionContext(state, pos, false)) as CompletionResult;
    expect([result.from, result.to]).toEqual([16, 24]);
    expect(state.doc.sliceString(result.from, result.to)).toBe('frag-old');
  });

  it('escapes what it inserts', () => {
    const odd: ConfigChoices = { modules: [], fragments: [{ id: 'a"b', name: 'odd' }] };
    const { state, pos } = at('{"fragments": ["|"]}');
    const result = configCompletionSource(() => odd)(new CompletionContext(state, pos, false)) as CompletionResult;
    expect(result.options[0]).toMatchObject({ label: 'a"b', apply: 'a\\"b' });
  });

  it('has nothing to offer where the schema names nothing', () => {
    expect(complete('{"components": [{"attributes": {"|"}}]}')).toBeNull();
    expect(complete('{"x": "|"}')).toBeNull();
  });
});

describe('schemaAt and keyOffers', () => {
  it('follow properties, items and the object branch of a oneOf', () => {
    expect(schemaAt(['fragments', 0, 'version'])?.description).toMatch(/revision/);
    expect(schemaAt(['nope'])).toBeNull();
    expect(keyOffers(['fragments', 2]).map((o) => o.value)).toEqual(['id', 'version', 'prefix']);
  });
});
