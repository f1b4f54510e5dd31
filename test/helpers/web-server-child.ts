/**
 * Browser mode's server in a process of its own, for tests that try to kill it: a crash there must
 * show as a dead child, not as an error inside the test runner. The backend is real (profiles,
 * cache, keychain) but its local service is never started: the tests are about the transport.
 *
 *   node --import tsx test/helpers/web-server-child.ts USER_DATA_DIR RENDERER_DIR TOKEN [LIMITS_JSON]
 *
 * LIMITS_JSON: the server's WebServerLimits (tests shorten its timeouts).
 *
 * Prints one JSON line `{"origin": …, "url": …}` when serving; every log line goes to stderr.
 */
import { Backend } from '../../main/backend/backend';
import { startWebServer, type WebServerLimits } from '../../main/web/server';
import { serviceEntry, serviceExecArgv } from './backend';

const [userDataDir, rendererDir, token, limitsJson] = process.argv.slice(2);
if (!userDataDir || !rendererDir || !token) throw new Error('usage: web-server-child.ts USER_DATA_DIR RENDERER_DIR TOKEN [LIMITS_JSON]');
const limits = limitsJson ? (JSON.parse(limitsJson) as WebServerLimits) : undefined;

const log = (m: string) => process.stderr.write(`${m}\n`);
const backend = await Backend.open({ userDataDir, serviceEntry, serviceExecArgv, log });
const server = await startWebServer({ handlers: backend.handlers, events: backend.events, rendererDir, token, log, limits, downloads: backend.downloads, stageUpload: (name, body, size) => backend.uploads.stage(name, body, size) });
process.stdout.write(`${JSON.stringify({ origin: server.origin, url: server.url })}\n`);
process.on('SIGTERM', () => {
  void Promise.allSettled([server.close(), backend.close()]).then(() => process.exit(0));
});
