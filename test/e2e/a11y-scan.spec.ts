/**
 * The accessibility scan every spec runs (fixtures.ts `scan`) finds what it is there to find: a page
 * with serious and critical violations fails it, naming them; a clean one passes. It runs in the
 * page, with violations only returned in full: this holds that neither hides a violation.
 */
import { expect, scan, test } from './fixtures';

test('the accessibility scan fails a page with serious violations, naming each, and passes a clean one', async ({ sharedChromium }, testInfo) => {
  test.skip(testInfo.project.metadata.host === 'electron', 'a page of its own in Chromium, not the app');
  const context = await (await sharedChromium()).newContext();
  try {
    const page = await context.newPage();
    await page.setContent(
      '<html lang="en"><head><title>scan</title></head><body><main><h1>Scan</h1><button></button><p style="color:#777;background:#888">low contrast</p><input type="text"></main></body></html>',
    );
    const failed = await scan(page, 'a page made wrong').then(
      () => null,
      (e: unknown) => String(e),
    );
    expect(failed).toContain('button-name (critical)');
    expect(failed).toContain('color-contrast (serious)');
    expect(failed).toContain('label (critical)');
    await page.setContent('<html lang="en"><head><title>scan</title></head><body><main><h1>Scan</h1><button>Save</button><label>Name <input type="text"></label></main></body></html>');
    await scan(page, 'a page made right');
  } finally {
    await context.close();
  }
});
