/**
 * The accessibility scan every spec runs (fixtures.ts `scan`) finds what it is there to find: a page
 * with serious and critical violations fails it, naming them, in the document and inside an open
 * shadow root (the app's code editors draw in one); a clean one passes. It runs axe in the page
 * (legacy mode), which skips only frames of another origin (the app has no frames), and returns
 * violations alone in full.
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
    // Inside an open shadow root, as CodeMirror's editors and the metadata editor draw.
    await page.setContent('<html lang="en"><head><title>scan</title></head><body><main><h1>Scan</h1><div id="host"></div></main></body></html>');
    await page.evaluate(() => {
      document.getElementById('host')!.attachShadow({ mode: 'open' }).innerHTML = '<button></button>';
    });
    const inShadow = await scan(page, 'a shadow root made wrong').then(
      () => null,
      (e: unknown) => String(e),
    );
    expect(inShadow).toContain('button-name (critical)');
    await page.setContent('<html lang="en"><head><title>scan</title></head><body><main><h1>Scan</h1><button>Save</button><label>Name <input type="text"></label></main></body></html>');
    await scan(page, 'a page made right');
  } finally {
    await context.close();
  }
});
