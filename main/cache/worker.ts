/**
 * The cache worker threads' entry (out/main/cache-worker.js): the writer (writer.ts), or, started
 * with `role: 'reader'`, the tree reader (tree-reader.ts). Each loads only its own code: the reader
 * starts with the app, beside the window's boot, and needs the fleet's reads alone. Messages that
 * come before its code is loaded wait in the port (it starts with its first listener).
 */
import { parentPort, workerData } from 'node:worker_threads';

const port = parentPort;
if (port === null) throw new Error('the cache worker runs only as a worker thread');
const { path, settings, role, readAhead } = workerData as { path: string; settings?: Readonly<Record<string, unknown>>; role?: 'reader'; readAhead?: { readonly holdMs: number } };
if (role === 'reader') {
  const { serveReads } = await import('./tree-reader');
  serveReads(port, path, readAhead ?? null);
} else {
  const { serveJobs } = await import('./writer');
  serveJobs(port, path, settings ?? {});
}
