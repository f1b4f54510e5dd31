import type { z } from 'zod';

/** A schema's issues as one sentence per top-level field ("Must not be empty."), first issue wins. */
export function fieldErrors(error: z.ZodError): Partial<Record<string, string>> {
  const out: Partial<Record<string, string>> = {};
  for (const issue of error.issues) {
    const key = typeof issue.path[0] === 'string' ? issue.path[0] : '';
    if (out[key] !== undefined) continue;
    const text = issue.message.trim();
    out[key] = `${text.charAt(0).toUpperCase()}${text.slice(1)}${/[.!?]$/.test(text) ? '' : '.'}`;
  }
  return out;
}
