import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { IpcMainInvokeEvent } from 'electron';
import { IPC_INVOKE } from '../../common/bridge';
import { channelNames } from '../../common/channel-names';
import { createRouter, type BridgeHost, type Handlers } from '../backend/router';
import { fake, FakeWebFrame, resetFakeElectron } from '../../test/electron/fake-electron';
import { appLocation } from './app-url';
import { createInvokeHandler, createSenderCheck, registerBridgeIpc, toBridgeSender } from './ipc';

vi.mock('electron', async () => (await import('../../test/electron/fake-electron')).electronModule);

const appUrl = 'app://fleet-desk/index.html';
const location = appLocation();
const APP_WINDOW_ID = 7;

function invokeEvent(options: { url?: string; id?: number; subframe?: boolean; noFrame?: boolean } = {}): IpcMainInvokeEvent {
  const top = new FakeWebFrame(options.url ?? appUrl);
  const frame = options.noFrame ? null : options.subframe ? new FakeWebFrame(options.url ?? appUrl, top) : top;
  return { senderFrame: frame, sender: { id: options.id ?? APP_WINDOW_ID } } as unknown as IpcMainInvokeEvent;
}

/** A real router over handlers that only record their calls. */
function realRouter() {
  const calls: string[] = [];
  const handlers = Object.fromEntries(
    channelNames.map((name) => [name, vi.fn(async () => {
      calls.push(name);
      return { answeredBy: name };
    })]),
  ) as unknown as Handlers;
  const log = vi.fn();
  const host = createRouter(handlers, { isTrustedSender: createSenderCheck(location, (id) => id === APP_WINDOW_ID), log });
  return { host, calls, log };
}

describe('toBridgeSender', () => {
  it('takes the frame URL and the webContents id', () => {
    expect(toBridgeSender(invokeEvent({ url: `${appUrl}#/x`, id: 3 }))).toEqual({ transport: 'ipc', url: `${appUrl}#/x`, id: 3 });
  });
  it('uses an empty URL when the frame is gone', () => {
    expect(toBridgeSender(invokeEvent({ noFrame: true }))).toEqual({ transport: 'ipc', url: '', id: APP_WINDOW_ID });
  });
});

describe('createSenderCheck', () => {
  const check = createSenderCheck(location, (id) => id === APP_WINDOW_ID);
  it('trusts the app page in an app window', () => {
    expect(check({ transport: 'ipc', url: appUrl, id: APP_WINDOW_ID })).toBe(true);
  });
  it('needs both the app URL and an app window', () => {
    expect(check({ transport: 'ipc', url: `${appUrl}#/orgs`, id: APP_WINDOW_ID })).toBe(true);
    expect(check({ transport: 'ipc', url: 'https://evil.example/', id: APP_WINDOW_ID })).toBe(false);
    expect(check({ transport: 'ipc', url: appUrl, id: APP_WINDOW_ID + 1 })).toBe(false);
    expect(check({ transport: 'ipc', url: '', id: APP_WINDOW_ID })).toBe(false);
  });
  it('no longer trusts the built page on file://, nor another app:// host or page', () => {
    for (const url of ['file:///opt/fleet-desk/out/renderer/index.html', 'app://other-host/index.html', 'app://fleet-desk/assets/x.html']) {
      expect(check({ transport: 'ipc', url, id: APP_WINDOW_ID }), url).toBe(false);
    }
  });
  it('does not trust WebSocket senders (browser mode has its own check)', () => {
    expect(check({ transport: 'ws', url: appUrl, id: APP_WINDOW_ID })).toBe(false);
  });
});

describe('the invoke handler', () => {
  beforeEach(resetFakeElectron);

  it('forwards a trusted call to the handler and returns its envelope', async () => {
    const { host, calls } = realRouter();
    const result = await createInvokeHandler(host, vi.fn())(invokeEvent(), 'profiles.list', {});
    expect(result).toEqual({ ok: true, value: { answeredBy: 'profiles.list' } });
    expect(calls).toEqual(['profiles.list']);
  });

  it.each([
    ['a foreign URL', { url: 'https://evil.example/' }],
    ['another file', { url: 'file:///tmp/evil.html' }],
    ['the built page on file://', { url: 'file:///opt/fleet-desk/out/renderer/index.html' }],
    ['another app:// host', { url: 'app://other-host/index.html' }],
    ['an unknown webContents', { id: 99 }],
    ['a subframe showing the app page', { subframe: true }],
    ['a destroyed frame', { noFrame: true }],
  ])('rejects %s with permission-denied, reaching no handler', async (_name, options) => {
    const { host, calls } = realRouter();
    const result = await createInvokeHandler(host, vi.fn())(invokeEvent(options), 'profiles.list', {});
    expect(result).toMatchObject({ ok: false, error: { kind: 'permission-denied' } });
    expect(calls).toEqual([]);
  });

  it('hands dispatch the parsed sender, channel and payload unchanged, and its answer as it goes on the wire (a serialized one as text)', async () => {
    const dispatchWire = vi.fn<BridgeHost['dispatchWire']>(async () => ({ ok: true, json: '{"orgId":"o"}' }));
    const dispatch = vi.fn<BridgeHost['dispatch']>();
    const payload = { name: 'x' };
    const result = await createInvokeHandler({ dispatch, dispatchWire }, vi.fn())(invokeEvent({ url: `${appUrl}#/a`, id: 5 }), 'profiles.add', payload);
    expect(dispatchWire).toHaveBeenCalledExactlyOnceWith({ transport: 'ipc', url: `${appUrl}#/a`, id: 5 }, 'profiles.add', payload);
    expect(dispatch).not.toHaveBeenCalled();
    expect(result).toEqual({ ok: true, json: '{"orgId":"o"}' });
  });

  it('does not ask dispatch about subframes at all', async () => {
    const dispatch = vi.fn<BridgeHost['dispatch']>();
    const dispatchWire = vi.fn<BridgeHost['dispatchWire']>();
    const log = vi.fn();
    const result = await createInvokeHandler({ dispatch, dispatchWire }, log)(invokeEvent({ subframe: true }), 'profiles.list', {});
    expect(result).toMatchObject({ ok: false, error: { kind: 'permission-denied' } });
    expect(dispatch).not.toHaveBeenCalled();
    expect(dispatchWire).not.toHaveBeenCalled();
    expect(log).toHaveBeenCalledWith(expect.stringContaining('subframe'));
  });

  it('answers with an internal envelope instead of throwing when dispatch fails', async () => {
    const dispatchWire = vi.fn<BridgeHost['dispatchWire']>(async () => {
      throw new Error('backend did not open');
    });
    const result = await createInvokeHandler({ dispatch: vi.fn(), dispatchWire }, vi.fn())(invokeEvent(), 'profiles.list', {});
    expect(result).toMatchObject({ ok: false, error: { kind: 'internal', message: expect.stringContaining('backend did not open') } });
  });

  it('is registered on the bridge channel and can be removed', async () => {
    const { host, calls } = realRouter();
    const remove = registerBridgeIpc(host, vi.fn());
    const handler = fake.ipcMain.handlers.get(IPC_INVOKE);
    expect(handler).toBeTypeOf('function');
    expect(await handler?.(invokeEvent(), 'profiles.list', {})).toMatchObject({ ok: true });
    expect(calls).toEqual(['profiles.list']);
    remove();
    expect(fake.ipcMain.handlers.has(IPC_INVOKE)).toBe(false);
  });
});
