import { json } from '@codemirror/lang-json';
import { EditorState } from '@codemirror/state';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fixtureConfig } from '../testing/config-fixtures';
import { checkConfig, describePath, textLocator } from './check';
import { treeLocator } from './syntax';

const at = (text: string, needle: string) => text.indexOf(needle);

describe('checkConfig', () => {
  it('finds nothing wrong with a config of every section', () => {
    expect(checkConfig(fixtureConfig(20))).toEqual([]);
    expect(checkConfig('{}')).toEqual([]);
  });

  it('places a syntax error where the parser stopped, without quoting the text', () => {
    const text = '{\n  "components": [\n    {"name": "a",}\n  ]\n}';
    const [problem] = checkConfig(text);
    expect(problem).toMatchObject({ severity: 'error', where: '' });
    expect(problem!.message).toMatch(/^Not valid JSON: Expected double-quoted property name\.$/);
    expect(problem!.from).toBe(at(text, '}\n  ]'));
  });

  it('places an unexpected token through the locator (V8 does not say where), and an early end at the end', () => {
    const text = '{"network": }';
    const [problem] = checkConfig(text);
    expect(problem!.message).toBe("Not valid JSON: Unexpected token '}'.");
    expect(problem!.from).toBe(at(text, '}'));
    expect(checkConfig('{"a": ')[0]).toMatchObject({ from: 6, message: 'Not valid JSON: Unexpected end of JSON input.' });
  });

  it('refuses a value that is not an object', () => {
    expect(checkConfig('[]')).toEqual([{ from: 0, to: 2, severity: 'error', message: 'A config is a JSON object, like {"components": []}.', where: '' }]);
  });

  it('says what the schema refuses, where, naming the resource', () => {
    const text = JSON.stringify({ components: [{ name: 'cam', api: 'rdk:component:camera', model: 'web cam' }, { api: 'rdk:component:motor' }], modules: [{ name: 'm', type: 'remote' }] }, null, 2);
    const problems = checkConfig(text);
    expect(problems.map((p) => p.message)).toEqual([
      'components[0] "cam".model is not in the expected form: the model that implements the API, e.g. rdk:builtin:webcam, a module\'s model, or a built-in\'s bare name (webcam).',
      'components[1] needs "name".',
      'modules[0] "m".type must be one of "registry", "local".',
    ]);
    expect(text.slice(problems[0]!.from, problems[0]!.to)).toBe('"web cam"');
    expect(text.slice(problems[2]!.from, problems[2]!.to)).toBe('"remote"');
    // An object is marked whole when short, by its first character when long.
    expect(text[problems[1]!.from]).toBe('{');
  });

  it('says once that a component needs an api, not why each alternative failed', () => {
    const problems = checkConfig('{"components": [{"name": "a", "model": "rdk:builtin:webcam"}]}');
    expect(problems.map((p) => p.message)).toEqual(['components[0] "a" needs "api" (or the older "type").']);
  });

  it('explains fragments entries and mods, marking an unknown operator by its key', () => {
    const text = '{"fragments": [42, {"version": "1"}], "fragment_mods": [{"fragment_id": "f", "mods": [{"$push": {}}]}]}';
    const messages = checkConfig(text).map((p) => [p.message, text.slice(p.from, p.to)]);
    expect(messages).toEqual([
      ['fragments[0] must be a fragment id, or an object {"id", "version", "prefix"}.', '42'],
      ['fragments[1] must be a fragment id, or an object {"id", "version", "prefix"}.', '{"version": "1"}'],
      ['fragment_mods[0].mods[0] cannot hold "$push".', '"$push"'],
    ]);
  });

  it('allows keys the schema does not know, anywhere', () => {
    expect(checkConfig('{"cloud": {"id": "x"}, "components": [{"name": "a", "api": "x:y:z", "future_field": [1]}]}')).toEqual([]);
  });

  it('refuses two resources of one name in a section, pointing at the second', () => {
    const text = '{"services": [{"name": "s", "api": "rdk:service:slam"}, {"name": "s", "api": "rdk:service:slam"}]}';
    const [problem] = checkConfig(text);
    expect(problem).toMatchObject({ message: 'services[1] is named "s", like services[0]: names must be unique in services.', from: text.lastIndexOf('"s"') });
  });

  it('checks a 1 MiB config without parsing it twice when nothing is wrong', () => {
    const text = fixtureConfig(5_000);
    let placed = 0;
    const locator = { value: () => (placed++, null), syntaxError: () => (placed++, null) };
    expect(checkConfig(text, locator)).toEqual([]);
    // Nothing to place: the locator (a second parse without an editor) was never asked.
    expect(placed).toBe(0);
  });
});

describe('locators', () => {
  const state = (doc: string) => EditorState.create({ doc, extensions: [json()] });

  it('place values the same with the editor\'s tree as with a parse of the text', () => {
    const text = JSON.stringify({ a: { 'b/c': [1, { d: 'x' }] }, a2: [true, null] }, null, 2);
    const paths = [['a'], ['a', 'b/c'], ['a', 'b/c', 1], ['a', 'b/c', 1, 'd'], ['a2', 0], ['a2', 1], ['missing'], ['a', 'b/c', 5]];
    const fromTree = treeLocator(state(text));
    const fromText = textLocator(text);
    for (const path of paths) expect(fromTree.value(path), JSON.stringify(path)).toEqual(fromText.value(path));
  });

  it('find the first syntax error the same way', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), (value, cut) => {
        const text = JSON.stringify(value);
        const broken = `{"x": ${text.slice(0, cut % (text.length + 1))}`;
        const tree = treeLocator(state(broken)).syntaxError();
        expect(tree).not.toBeNull();
        expect(typeof textLocator(broken).syntaxError()).toBe('number');
      }),
      { numRuns: 100 },
    );
  });

  it('take the last of duplicate keys, as JSON.parse does', () => {
    const text = '{"a": 1, "a": 2}';
    expect(treeLocator(state(text)).value(['a'])).toMatchObject({ from: text.lastIndexOf('2') });
  });
});

describe('describePath', () => {
  it('reads like the config, with names of resources and quotes where a key needs them', () => {
    const value = { components: [{ name: 'cam' }], 'odd key': { processes: [{ id: 'p' }] } };
    expect(describePath(value, ['components', 0, 'attributes'])).toBe('components[0] "cam".attributes');
    expect(describePath(value, ['odd key', 'processes', 0])).toBe('"odd key".processes[0] "p"');
    expect(describePath(value, [])).toBe('');
  });
});
