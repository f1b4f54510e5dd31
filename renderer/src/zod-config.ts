/**
 * Imported first (renderer/src/main.ts), before any schema is built: zod would otherwise probe for
 * eval (`new Function`) to compile faster validators. The CSP (script-src 'self') forbids it, and
 * each probe is reported as a policy violation. Validation works the same without it.
 */
import { z } from 'zod';

z.config({ jitless: true });
