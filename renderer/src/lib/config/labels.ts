import type { ConfigProblem } from './check';

/**
 * The editor's one-line state, read by screen readers as the editor's description: whether there
 * are unsaved changes and, when something is wrong, how much and the first of it (the rest are
 * inline and in the problems list).
 */
export function problemsSummary(problems: readonly ConfigProblem[], dirty: boolean): string {
  const changes = dirty ? 'Unsaved changes.' : 'No unsaved changes.';
  if (problems.length === 0) return changes;
  const errors = problems.filter((p) => p.severity === 'error').length;
  const warnings = problems.length - errors;
  const counted = [errors > 0 ? `${count(errors, 'problem')} to fix before saving` : '', warnings > 0 ? count(warnings, 'warning') : ''].filter(Boolean).join(' and ');
  return `${changes} ${counted}: ${problems[0].message}${problems.length > 1 ? ' …' : ''}`;
}

const count = (n: number, word: string) => `${n.toLocaleString('en')} ${word}${n === 1 ? '' : 's'}`;
