import { describe, expect, it } from 'vitest';
import { configRequests, configText, configTextProblem, fragmentVersion, MAX_CONFIG_BYTES } from './config';

describe('configTextProblem', () => {
  it.each([
    ['{}', undefined],
    ['{\n  "b": 1, "a": [{"x": null}]\n}', undefined],
    ['[]', 'must be a JSON object ({…}), not an array'],
    ['"x"', 'must be a JSON object ({…}), not a string'],
    ['null', 'must be a JSON object ({…}), not null'],
    ['3', 'must be a JSON object ({…}), not a number'],
  ])('%s', (text, problem) => {
    expect(configTextProblem(text)).toBe(problem);
  });

  it('says what JSON.parse stopped at', () => {
    expect(configTextProblem('{"a": }')).toMatch(/^is not valid JSON: Unexpected token '}'/);
  });

  it('counts bytes, not characters, against 1.5 MiB', () => {
    const padding = MAX_CONFIG_BYTES - 10;
    expect(configTextProblem(`{"a": "${'x'.repeat(padding)}"}`)).toBeUndefined();
    // The same count of characters, each two bytes in UTF-8.
    expect(configTextProblem(`{"a": "${'é'.repeat(padding / 2 + 8)}"}`)).toMatch(/MiB of JSON; a config is at most 1.5 MiB/);
  });

  it('allows 32 levels and refuses 33, without recursion', () => {
    const nest = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
    expect(configTextProblem(nest(32))).toBeUndefined();
    expect(configTextProblem(nest(33))).toBe('nests more than 32 levels deep');
    expect(configTextProblem(`{"a": ${'['.repeat(5000)}${']'.repeat(5000)}}`)).toBe('nests more than 32 levels deep');
  });

  it('is what the configText schema refuses with', () => {
    const result = configText.safeParse('[1]');
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe('must be a JSON object ({…}), not an array');
  });
});

describe('fragment versions', () => {
  it.each(['1', '42', 'stable', 'release-2', '_x'])('%s is a version', (v) => expect(fragmentVersion.safeParse(v).success).toBe(true));
  it.each(['0', '01', 'v2', 'Stable', '', 'a b', 'x'.repeat(61)])('%s is not', (v) => {
    const result = fragmentVersion.safeParse(v);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/^is neither a revision number nor a tag: it /);
  });
});

describe('config channels', () => {
  it('refuse a save without the conflict token', () => {
    expect(configRequests['config.save'].safeParse({ partId: 'p', configJson: '{}' }).success).toBe(false);
  });
});
