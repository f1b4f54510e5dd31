import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import type { WireFrame } from '../../../../common/bridge';
import { createBridge } from '../../../../common/bridge';
import { ok } from '../../../../common/result';
import { LOST_BACKEND_MESSAGE, createWebSocketTransport, type LinkState, type SocketLike } from './ws-transport';
import { bridgeSocketUrl, resolveBridge } from './bridge';

/** A WebSocket double: records what the page sends; the test plays the backend. */
class FakeSocket implements SocketLike {
  static instances: FakeSocket[] = [];
  onopen: ((ev: Event) => void) | null = null;
  onmessage: ((ev: MessageEvent) => void) | null = null;
  onclose: ((ev: CloseEvent) => void) | null = null;
  onerror: ((ev: Event) => void) | null = null;
  readonly sent: WireFrame[] = [];
  closed = false;

  constructor(readonly url: string) {
    FakeSocket.instances.push(this);
  }
  static get last(): FakeSocket {
    const socket = FakeSocket.instances.at(-1);
    if (!socket) throw new Error('no socket was opened');
    return socket;
  }
  send(data: string): void {
    if (this.closed) throw new Error('send on a closed socket');
    this.sent.push(JSON.parse(data) as WireFrame);
  }
  close(): void {
    this.closed = true;
  }
  // The backend's side:
  open(): void {
    this.onopen?.(new Event('open'));
  }
  receive(frame: WireFrame | string): void {
    this.onmessage?.(new MessageEvent('message', { data: typeof frame === 'string' ? frame : JSON.stringify(frame) }));
  }
  drop(): void {
    this.closed = true;
    this.onerror?.(new Event('error'));
    this.onclose?.(Object.assign(new Event('close'), { code: 1006, reason: '', wasClean: false }) as CloseEvent);
  }
  invokes(): Extract<WireFrame, { type: 'invoke' }>[] {
    return this.sent.filter((f): f is Extract<WireFrame, { type: 'invoke' }> => f.type === 'invoke');
  }
}

function setup(options: { initialDelayMs?: number; maxDelayMs?: number } = {}) {
  const warnings: string[] = [];
  const transport = createWebSocketTransport({
    url: 'ws://127.0.0.1:5173/bridge?token=t',
    WebSocket: FakeSocket,
    initialDelayMs: options.initialDelayMs ?? 100,
    maxDelayMs: options.maxDelayMs ?? 1_000,
    warn: (m) => warnings.push(m),
  });
  const links: LinkState[] = [];
  transport.onLinkChange((l) => links.push(l));
  return { transport, bridge: createBridge(transport), warnings, links };
}

describe('createWebSocketTransport', () => {
  beforeEach(() => {
    FakeSocket.instances = [];
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  test('queues calls until the socket opens, then sends them in order with increasing ids', async () => {
    const { bridge, transport } = setup();
    expect(FakeSocket.last.url).toBe('ws://127.0.0.1:5173/bridge?token=t');
    expect(transport.link.status).toBe('connecting');
    const a = bridge.invoke('orgs.list', {});
    const b = bridge.invoke('orgs.get', { orgId: 'o1' });
    expect(FakeSocket.last.sent).toEqual([]);

    FakeSocket.last.open();
    expect(transport.link.status).toBe('open');
    const [first, second] = FakeSocket.last.invokes();
    expect(first).toEqual({ type: 'invoke', id: 1, channel: 'orgs.list', request: {} });
    expect(second).toEqual({ type: 'invoke', id: 2, channel: 'orgs.get', request: { orgId: 'o1' } });

    // Answers may come in any order; ids match them up.
    FakeSocket.last.receive({ type: 'result', id: 2, result: ok({ id: 'o1' }) });
    FakeSocket.last.receive({ type: 'result', id: 1, result: ok({ orgs: [], syncedAt: null }) });
    await expect(b).resolves.toEqual(ok({ id: 'o1' }));
    await expect(a).resolves.toEqual(ok({ orgs: [], syncedAt: null }));
  });

  test('calls made while open go out at once', async () => {
    const { bridge } = setup();
    FakeSocket.last.open();
    const call = bridge.invoke('connection.retry', {});
    expect(FakeSocket.last.invokes()).toEqual([{ type: 'invoke', id: 1, channel: 'connection.retry', request: {} }]);
    FakeSocket.last.receive({ type: 'result', id: 1, result: { ok: false, error: { kind: 'offline', message: 'No answer.' } } });
    await expect(call).resolves.toEqual({ ok: false, error: { kind: 'offline', message: 'No answer.' } });
  });

  test('event frames reach the subscribers of that event only, until they unsubscribe', () => {
    const { bridge } = setup();
    FakeSocket.last.open();
    const seen: unknown[] = [];
    const other: unknown[] = [];
    const stop = bridge.on('orgs.changed', (p) => seen.push(p));
    bridge.on('profiles.changed', (p) => other.push(p));
    FakeSocket.last.receive({ type: 'event', event: 'orgs.changed', payload: { orgs: [], syncedAt: null } });
    expect(seen).toEqual([{ orgs: [], syncedAt: null }]);
    expect(other).toEqual([]);
    stop();
    FakeSocket.last.receive({ type: 'event', event: 'orgs.changed', payload: { orgs: [], syncedAt: 'x' } });
    expect(seen).toHaveLength(1);
  });

  test('on close, sent and queued calls resolve offline; then it reconnects with backoff', async () => {
    const { bridge, transport, links } = setup({ initialDelayMs: 100, maxDelayMs: 300 });
    FakeSocket.last.open();
    const inFlight = bridge.invoke('orgs.list', {});
    FakeSocket.last.drop();
    const answer = await inFlight;
    expect(answer.ok).toBe(false);
    if (!answer.ok) {
      expect(answer.error.kind).toBe('offline');
      expect(answer.error.message.startsWith(LOST_BACKEND_MESSAGE)).toBe(true);
    }
    expect(transport.link.status).toBe('waiting');
    expect(FakeSocket.instances).toHaveLength(1);

    // A call while waiting queues and is settled by the next attempt's failure.
    const queued = bridge.invoke('orgs.list', {});
    vi.advanceTimersByTime(99);
    expect(FakeSocket.instances).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(FakeSocket.instances).toHaveLength(2);
    FakeSocket.last.drop();
    expect((await queued).ok).toBe(false);

    // Second failure waits twice as long, the third is capped.
    vi.advanceTimersByTime(199);
    expect(FakeSocket.instances).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(FakeSocket.instances).toHaveLength(3);
    FakeSocket.last.drop();
    vi.advanceTimersByTime(300);
    expect(FakeSocket.instances).toHaveLength(4);

    // Once open again the delay starts over, and new calls work.
    FakeSocket.last.open();
    expect(transport.link).toMatchObject({ status: 'open', failures: 0, everOpened: true });
    const again = bridge.invoke('orgs.list', {});
    FakeSocket.last.receive({ type: 'result', id: FakeSocket.last.invokes()[0]?.id ?? -1, result: ok('fine') });
    await expect(again).resolves.toEqual(ok('fine'));
    expect(links.map((l) => l.status)).toEqual([
      'open', 'waiting', 'connecting', 'waiting', 'connecting', 'waiting', 'connecting', 'open',
    ]);
  });

  test('a first connection that never opens is reported as such (everOpened false)', () => {
    const { transport } = setup();
    FakeSocket.last.drop();
    expect(transport.link).toMatchObject({ status: 'waiting', failures: 1, everOpened: false });
  });

  test('reconnectNow skips the wait', () => {
    const { transport } = setup({ initialDelayMs: 10_000, maxDelayMs: 10_000 });
    FakeSocket.last.drop();
    transport.reconnectNow();
    expect(FakeSocket.instances).toHaveLength(2);
    expect(transport.link.status).toBe('connecting');
    vi.advanceTimersByTime(10_000);
    expect(FakeSocket.instances).toHaveLength(2);
  });

  test('malformed frames are reported and ignored; a malformed result fails its call', async () => {
    const { bridge, warnings } = setup();
    FakeSocket.last.open();
    const call = bridge.invoke('orgs.list', {});
    FakeSocket.last.receive('not json');
    FakeSocket.last.receive({ type: 'result', id: 99, result: ok(1) });
    expect(warnings).toHaveLength(2);
    FakeSocket.last.receive(JSON.stringify({ type: 'result', id: 1, result: { ok: false, error: { kind: 'weird', message: 'x' } } }));
    const answer = await call;
    expect(answer.ok).toBe(false);
    if (!answer.ok) expect(answer.error.kind).toBe('internal');
  });

  test('dispose settles pending calls and stops reconnecting', async () => {
    const { bridge, transport } = setup();
    const call = bridge.invoke('orgs.list', {});
    transport.dispose();
    expect((await call).ok).toBe(false);
    expect(FakeSocket.last.closed).toBe(true);
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.instances).toHaveLength(1);
  });
});

describe('resolveBridge', () => {
  beforeEach(() => {
    FakeSocket.instances = [];
  });

  function page(search: string, hash = '') {
    const replaced: string[] = [];
    const value: { location: { origin: string; pathname: string; search: string; hash: string }; history: { replaceState(data: unknown, unused: string, url?: string): void }; fleet?: unknown } = {
      location: { origin: 'http://127.0.0.1:5173', pathname: '/', search, hash },
      history: { replaceState: (_d, _u, url) => replaced.push(url ?? '') },
    };
    return { value, replaced };
  }

  test('uses the bridge the preload installed, and touches no history', () => {
    const installed = { invoke: () => Promise.resolve(ok(1)), on: () => () => {} };
    const { value, replaced } = page('');
    value.fleet = installed;
    const setupResult = resolveBridge(value, FakeSocket);
    expect(setupResult).toEqual({ kind: 'electron', bridge: installed });
    expect(FakeSocket.instances).toHaveLength(0);
    expect(replaced).toEqual([]);
  });

  test('browser mode connects to the bridge path without any credential in the URL and installs the bridge', () => {
    const { value } = page('');
    const result = resolveBridge(value, FakeSocket);
    expect(result.kind).toBe('browser');
    expect(FakeSocket.last.url).toBe('ws://127.0.0.1:5173/bridge');
    expect(value.fleet).toBe(result.bridge);
    if (result.kind === 'browser') result.transport.dispose();
  });

  test('the launch token is taken out of the address, keeping the rest', () => {
    const { value, replaced } = page('?token=a%2Bb%20c&view=logs', '#/orgs');
    const result = resolveBridge(value, FakeSocket);
    expect(replaced).toEqual(['/?view=logs#/orgs']);
    expect(FakeSocket.last.url).not.toContain('token');
    if (result.kind === 'browser') result.transport.dispose();
  });

  test('https pages use wss', () => {
    expect(bridgeSocketUrl('https://fleet.local:8443')).toBe('wss://fleet.local:8443/bridge');
  });
});
