/**
 * The bridge's guards, on the real backend: every payload is parsed before a handler sees it, a
 * malformed one gets the `invalid` kind and main keeps serving; a sender that is not the app is
 * refused; browser mode admits only its own origin with the session its launch token opened.
 */
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createBridge, WS_PATH, type WireFrame } from '../../common/bridge';
import { channelNames } from '../../common/channel-names';
import { fromWire } from '../../common/result';
import { resultFrame, startWebServer, type WebServer } from '../../main/web/server';
import { openTestBackend, tempDir, trustedSender, type TestBackend } from '../helpers/backend';

let dir: ReturnType<typeof tempDir>;
let app: TestBackend;

beforeAll(async () => {
  dir = tempDir('fleet-desk-bridge-');
  app = await openTestBackend(dir.path);
  await app.backend.start();
});
afterAll(async () => {
  await app.close();
  dir.remove();
});

describe('payload validation', () => {
  it.each([
    ['orgs.create', { name: 42 }],
    ['orgs.create', { name: '' }],
    ['orgs.create', {}],
    ['orgs.create', { name: 'ok', extra: 'field' }],
    ['orgs.get', { orgId: '' }],
    ['orgs.get', 'not an object'],
    ['orgs.list', { unexpected: true }],
    ['profiles.add', { name: 'x', address: 'no-port', tls: false, apiKeyId: 'id', apiKey: 'key' }],
    ['profiles.add', { name: 'x', address: 'host:70000', tls: false, apiKeyId: 'id', apiKey: 'key' }],
    ['profiles.add', { name: 'x', address: 'host:443', tls: 'yes', apiKeyId: 'id', apiKey: 'key' }],
    ['profiles.switch', null],
  ])('%s with %j is invalid, and main keeps serving', async (channel, payload) => {
    const result = await app.host.dispatch(trustedSender, channel, payload);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.kind).toBe('invalid');
      expect(result.error.message).toContain(channel);
    }
    const after = await app.call('orgs.list', {});
    expect(after.ok).toBe(true);
  });

  it('an unknown channel is invalid', async () => {
    const result = await app.host.dispatch(trustedSender, 'fs.readFile', { path: '/etc/passwd' });
    expect(result).toEqual({ ok: false, error: { kind: 'invalid', message: 'Unknown bridge channel "fs.readFile".' } });
  });

  it('every channel of the contract is routed', () => {
    for (const channel of channelNames) expect(typeof app.backend.handlers[channel]).toBe('function');
  });
});

/** A tree without what a running backend rewrites on its own (liveness, the sync time). */
const stable = (tree: unknown): unknown => JSON.parse(JSON.stringify(tree, (key: string, value: unknown) => (['syncedAt', 'partLastAccess', 'lastAccess'].includes(key) ? undefined : value)));

describe('a whole tree crosses as the text the tree reader serialized', () => {
  it('stays text on the wire, is parsed for callers in main and by the renderer’s bridge over IPC, and is the same value each way', async () => {
    const { orgs } = await app.value('orgs.list', {});
    const orgId = orgs.find((o) => o.name === 'Acme Warehouse Robotics')!.id;
    for (const [channel, request] of [['locations.treeColumns', { orgId }], ['locations.treeColumns', { orgId, parts: false }], ['locations.treeParts', { orgId }], ['locations.tree', { orgId }]] as const) {
      const wire = await app.host.dispatchWire(trustedSender, channel, request);
      if (!wire.ok || !('json' in wire)) throw new Error(`${channel} did not answer as text: ${JSON.stringify(wire).slice(0, 200)}`);
      const value: unknown = JSON.parse(wire.json);
      expect(value).toMatchObject({ orgId });
      // Read again: the same tree, but for what the running backend may have written meanwhile (parts' last access, the sync time).
      const again = await app.host.dispatch(trustedSender, channel, request);
      expect(again.ok && stable(again.value)).toEqual(stable(value));
      // Electron: the envelope goes through IPC as it is, and the renderer's bridge parses it.
      const overIpc = createBridge({ invoke: () => Promise.resolve(structuredClone(wire)), subscribe: () => () => undefined });
      expect(await overIpc.invoke(channel, request)).toEqual({ ok: true, value });
      // Browser mode: spliced into the frame as the result's value.
      expect(JSON.parse(resultFrame(9, wire))).toEqual({ type: 'result', id: 9, result: { ok: true, value } });
    }
    // Every other answer is an ordinary envelope.
    expect(await app.host.dispatchWire(trustedSender, 'orgs.list', {})).toEqual({ ok: true, value: await app.value('orgs.list', {}) });
    expect(JSON.parse(resultFrame(4, { ok: false, error: { kind: 'invalid', message: 'no' } }))).toEqual({ type: 'result', id: 4, result: { ok: false, error: { kind: 'invalid', message: 'no' } } });
  });

  it('a text that is not JSON reaches the renderer as an internal failure that says so, not a throw', () => {
    expect(fromWire({ ok: true, json: '{"orgId":' })).toMatchObject({ ok: false, error: { kind: 'internal', message: expect.stringContaining('not JSON') } });
    expect(fromWire({ ok: true, value: 1 })).toEqual({ ok: true, value: 1 });
  });
});

describe('sender validation (the router)', () => {
  // The router's guarantee: whatever the host's trust check says no to never reaches a handler. The
  // hosts' own checks are tested where they live: main/shell/ipc.test.ts (frame URL, window, top
  // frame) and test/bridge/web-server.test.ts (Origin and token).
  it('refuses a call its host does not trust, without running the handler', async () => {
    const before = (await app.value('orgs.list', {})).orgs.length;
    const result = await app.host.dispatch({ transport: 'ipc', url: 'https://evil.example/', id: 99 }, 'orgs.create', { name: 'Injected' });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.kind).toBe('permission-denied');
    expect((await app.value('orgs.list', {})).orgs.length).toBe(before);
  });
});

describe('browser mode (WebSocket bridge)', () => {
  let server: WebServer;
  let rendererDir: string;

  beforeAll(async () => {
    rendererDir = join(dir.path, 'renderer');
    mkdirSync(rendererDir);
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Fleet Desk</title>');
    server = await startWebServer({ handlers: app.backend.handlers, events: app.backend.events, rendererDir, log: () => undefined });
  });
  afterAll(async () => {
    await server.close();
  });

  const wsUrl = () => `${server.origin.replace('http', 'ws')}${WS_PATH}`;
  /** The session cookie the launch token was exchanged for, set by the first test. */
  let cookie = '';

  async function refused(url: string, origin: string, headers: Record<string, string> = {}): Promise<number> {
    const ws = new WebSocket(url, { origin, headers });
    ws.on('error', () => undefined); // the refusal itself; the status code is what is checked
    const [request, response] = (await once(ws, 'unexpected-response')) as [{ destroy(): void }, { statusCode: number }];
    request.destroy();
    return response.statusCode;
  }

  it('serves the page only with the token (then its session), with a strict CSP', async () => {
    expect((await fetch(server.origin)).status).toBe(403);
    expect((await fetch(`${server.origin}/?token=wrong`)).status).toBe(403);
    const withToken = await fetch(server.url);
    expect(withToken.status).toBe(200);
    expect(withToken.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(withToken.headers.get('referrer-policy')).toBe('no-referrer');
    cookie = (withToken.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    expect(cookie).not.toBe('');
  });

  it('refuses a socket from another origin, or without the session', async () => {
    expect(await refused(wsUrl(), 'https://evil.example', { cookie })).toBe(403);
    expect(await refused(wsUrl(), server.origin)).toBe(403);
    expect(await refused(`${wsUrl()}?token=${new URL(server.url).searchParams.get('token')}`, server.origin)).toBe(403);
    expect(await refused(wsUrl(), server.origin, { cookie: `${cookie.split('=')[0]}=wrong` })).toBe(403);
  });

  it('carries calls and events for its own origin with the session', async () => {
    const ws = new WebSocket(wsUrl(), { origin: server.origin, headers: { cookie } });
    await once(ws, 'open');
    const frames: WireFrame[] = [];
    ws.on('message', (data: Buffer) => frames.push(JSON.parse(data.toString()) as WireFrame));
    ws.send(JSON.stringify({ type: 'invoke', id: 1, channel: 'orgs.list', request: {} }));
    ws.send(JSON.stringify({ type: 'invoke', id: 2, channel: 'orgs.create', request: { name: 7 } }));
    ws.send('not json at all');
    ws.send(JSON.stringify({ type: 'invoke', id: 3, channel: 'connection.retry', request: {} }));
    const orgId = (await app.value('orgs.list', {})).orgs[0]!.id;
    ws.send(JSON.stringify({ type: 'invoke', id: 4, channel: 'locations.treeColumns', request: { orgId } }));
    await expect.poll(() => frames.filter((f) => f.type === 'result').length).toBe(4);
    const results = new Map(frames.flatMap((f) => (f.type === 'result' ? [[f.id, f.result] as const] : [])));
    expect(results.get(1)?.ok).toBe(true);
    expect(results.get(2)).toMatchObject({ ok: false, error: { kind: 'invalid' } });
    expect(results.get(3)?.ok).toBe(true);
    // A serialized tree arrives as an ordinary result with its value: the same tree as read here
    // (its sync time and its parts' last access may have moved since: the retry synced, parts log).
    const tree = await app.value('locations.treeColumns', { orgId });
    const sent = results.get(4);
    if (!sent?.ok) throw new Error('the tree call failed');
    const value = sent.value as typeof tree;
    expect(Object.keys(value).sort()).toEqual(Object.keys(tree).sort());
    expect([value.orgId, value.locationIds, value.machineIds, value.partIds, value.partNames]).toEqual([orgId, tree.locationIds, tree.machineIds, tree.partIds, tree.partNames]);
    // connection.retry syncs, and the sync pushes its snapshot as an event.
    expect(frames.some((f) => f.type === 'event' && f.event === 'connection.changed')).toBe(true);
    ws.close();
  });
});
