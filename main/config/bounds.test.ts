/**
 * The bridge checks config texts with common/'s rules (common imports nothing of ours), the service
 * with fleetconfig's: they must agree, or the editor would pass what the service refuses (or the
 * other way round).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { configTextProblem, MAX_CONFIG_BYTES as BRIDGE_BYTES, MAX_CONFIG_DEPTH as BRIDGE_DEPTH } from '../../common/config';
import { checkConfigText, MAX_CONFIG_BYTES, MAX_CONFIG_DEPTH } from '../../fleetconfig';

describe("the bridge's config rules", () => {
  it('use the bounds fleetconfig keeps', () => {
    expect(BRIDGE_BYTES).toBe(MAX_CONFIG_BYTES);
    expect(BRIDGE_DEPTH).toBe(MAX_CONFIG_DEPTH);
  });

  it('accept exactly the texts fleetconfig accepts', () => {
    const texts = fc.oneof(
      fc.json(),
      fc.jsonValue({ depthSize: 'large', maxDepth: 110 }).map((v) => JSON.stringify({ v })),
      fc.string(),
      // Objects nested around the depth bound, where the two rules could disagree by one level.
      fc.integer({ min: MAX_CONFIG_DEPTH - 5, max: MAX_CONFIG_DEPTH + 5 }).map((n) => `${'{"a":'.repeat(n - 1)}{}${'}'.repeat(n - 1)}`),
    );
    fc.assert(
      fc.property(texts, (text) => {
        expect(configTextProblem(text) === undefined).toBe(checkConfigText(text).ok);
      }),
      { numRuns: 500 },
    );
  });
});
