import { describe, expect, it } from 'vitest';
import type { ConfigProblem } from './check';
import { problemsSummary } from './labels';

const problem = (message: string, severity: 'error' | 'warning' = 'error'): ConfigProblem => ({ from: 0, to: 1, severity, message, where: '' });

describe('problemsSummary', () => {
  it('says whether there are unsaved changes, and what is wrong first', () => {
    expect(problemsSummary([], false)).toBe('No unsaved changes.');
    expect(problemsSummary([], true)).toBe('Unsaved changes.');
    expect(problemsSummary([problem('Not valid JSON: x.')], true)).toBe('Unsaved changes. 1 problem to fix before saving: Not valid JSON: x.');
    expect(problemsSummary([problem('a.'), problem('b.'), problem('c.', 'warning')], false)).toBe('No unsaved changes. 2 problems to fix before saving and 1 warning: a. …');
    expect(problemsSummary([problem('w.', 'warning')], true)).toBe('Unsaved changes. 1 warning: w.');
  });
});
