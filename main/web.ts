/**
 * Browser mode entry (`npm run web`): the same backend as the desktop app, with the renderer served on
 * a loopback port and the bridge over a WebSocket. Prints the URL to open (it carries the access token).
 *
 *   node out/main/web.js [--user-data-dir DIR] [--port N]
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Backend, LAUNCH_FIRST_VIEW_GRACE_MS } from './backend/backend';
import { defaultUserDataDir } from './paths';
import { startWebServer } from './web/server';

const here = dirname(fileURLToPath(import.meta.url));

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'user-data-dir': { type: 'string' },
      port: { type: 'string', default: '0' },
    },
    strict: true,
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0-65535, not "${values.port}"`);
  const userDataDir = resolve(values['user-data-dir'] ?? defaultUserDataDir());
  const log = (m: string) => process.stderr.write(`[fleet-desk] ${m}\n`);

  const backend = await Backend.open({ userDataDir, serviceEntry: join(here, 'service.js'), cacheWorker: { entry: join(here, 'cache-worker.js'), warm: true }, firstViewGraceMs: LAUNCH_FIRST_VIEW_GRACE_MS, log, acceptUploadPaths: false });
  const server = await startWebServer({ handlers: backend.handlers, events: backend.events, rendererDir: join(here, '..', 'renderer'), port, log, downloads: backend.downloads, stageUpload: (name, body, size) => backend.uploads.stage(name, body, size), page: (html) => backend.indexPage(html) });

  let closing = false;
  const shutdown = (why: string) => {
    if (closing) return;
    closing = true;
    log(`${why}: shutting down`);
    void Promise.allSettled([server.close(), backend.close()]).then(() => process.exit(0));
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));

  process.stdout.write(`Fleet Desk is running at ${server.url}\n`);
  log(`data: ${userDataDir}`);
  // Connect after the URL is out: the page shows the cache (and "connecting") while the service starts.
  await backend.start();
}

main().catch((e: unknown) => {
  process.stderr.write(`[fleet-desk] ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
