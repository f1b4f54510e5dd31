// Regenerates renderer/src/lib/config/validator.generated.js from the config schema (schema.ts):
// ajv's standalone code, since the renderer's CSP forbids compiling it at run time. Run it with tsx
// (`npm run gen:config-validator`): the schema is TypeScript. A unit test (validator.test.ts) fails
// when the committed file differs from what this writes.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validatorSource } from '../renderer/src/lib/config/validator-source.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'renderer', 'src', 'lib', 'config', 'validator.generated.js');
writeFileSync(target, validatorSource());
console.log(`wrote ${target}`);
