import { describe, expect, it } from 'vitest';
import committed from './validator.generated.js?raw';
import { validatorSource } from './validator-source';

describe('validator.generated.js', () => {
  it('is what `npm run gen:config-validator` makes of schema.ts now', () => {
    expect(committed === validatorSource(), 'the schema changed: run npm run gen:config-validator').toBe(true);
  });

  it('runs without eval or require, which the renderer cannot (CSP, ES modules)', () => {
    expect(committed).not.toMatch(/new Function|eval\(|require\(/);
  });
});
