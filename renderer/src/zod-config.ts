/**
 * What `zod` is in the page: the renderer's build resolves the bare name here
 * (electron.vite.config.ts), so zod is configured before any schema is built, in whichever chunk
 * first loads it — the window's boot path does not load zod at all; the dialogs, forms and pages that
 * check input with common/'s schemas bring it when first shown. The configuration: zod would
 * otherwise probe for eval (`new Function`) to compile faster validators; the CSP (script-src
 * 'self') forbids it, and each probe is reported as a policy violation. Validation works the same
 * without it.
 */
import { z } from 'zod/v4';

z.config({ jitless: true });

export * from 'zod/v4';
export { z, z as default };
