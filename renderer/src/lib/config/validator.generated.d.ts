// Types of the generated validator (validator.generated.js, ajv standalone code of schema.ts).
import type { ErrorObject } from 'ajv';

/** Ajv's validate function: true when the value fits the schema; otherwise `errors` says why, each at a JSON pointer. */
export interface ConfigValidator {
  (value: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/** The config schema's validator. */
export const validate: ConfigValidator;
export default validate;
