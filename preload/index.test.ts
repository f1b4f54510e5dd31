import type { EventEmitter } from 'node:events';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { BRIDGE_GLOBAL, IPC_EVENT, IPC_INVOKE, type FleetBridge } from '../common/bridge';
import type { ChannelName } from '../common/channels';
import type { EventName } from '../common/events';

const electron = vi.hoisted(() => {
  const exposed: [string, unknown][] = [];
  return {
    exposed,
    // An EventEmitter stands in for ipcRenderer's event side; invoke is a spy.
    ipcRenderer: null as unknown as EventEmitter & { invoke: ReturnType<typeof vi.fn> },
    // Records by hand: the calls happen once, at import, before any test's mock bookkeeping.
    contextBridge: { exposeInMainWorld: (key: string, api: unknown) => void exposed.push([key, api]) },
    webUtils: { getPathForFile: (file: unknown) => (file as { fakePath?: string }).fakePath ?? '' },
  };
});

vi.mock('electron', async () => {
  const { EventEmitter: Emitter } = await import('node:events');
  electron.ipcRenderer = Object.assign(new Emitter(), { invoke: vi.fn() });
  return { contextBridge: electron.contextBridge, ipcRenderer: electron.ipcRenderer, webUtils: electron.webUtils };
});

let bridge: FleetBridge;
beforeAll(async () => {
  await import('./index');
  bridge = electron.exposed[0]?.[1] as FleetBridge;
});
beforeEach(() => {
  electron.ipcRenderer.invoke.mockReset();
});

describe('preload', () => {
  it("exposes exactly { invoke, on, pathForFile } under 'fleet', frozen, and nothing else", () => {
    expect(electron.exposed.map(([key]) => key)).toEqual([BRIDGE_GLOBAL]);
    expect(BRIDGE_GLOBAL).toBe('fleet');
    expect(Object.keys(bridge).sort()).toEqual(['invoke', 'on', 'pathForFile']);
    expect(Object.isFrozen(bridge)).toBe(true);
  });

  it("answers a dropped file's path on disk (webUtils), and null for a file that is not on disk", () => {
    expect(bridge.pathForFile({ fakePath: '/home/user/module.tar.gz' })).toBe('/home/user/module.tar.gz');
    expect(bridge.pathForFile({})).toBeNull();
  });

  it('forwards a call to ipcRenderer.invoke on the bridge channel and returns its envelope', async () => {
    electron.ipcRenderer.invoke.mockResolvedValue({ ok: true, value: 'listed' });
    const result = await bridge.invoke('profiles.list', {});
    expect(electron.ipcRenderer.invoke).toHaveBeenCalledExactlyOnceWith(IPC_INVOKE, 'profiles.list', {});
    expect(result).toEqual({ ok: true, value: 'listed' });
  });

  it("rejects an unknown channel with 'invalid' without calling IPC", async () => {
    const result = await bridge.invoke('shell.exec' as ChannelName, {} as never);
    expect(result).toMatchObject({ ok: false, error: { kind: 'invalid' } });
    expect(electron.ipcRenderer.invoke).not.toHaveBeenCalled();
  });

  it('turns a failed IPC call into an envelope', async () => {
    electron.ipcRenderer.invoke.mockRejectedValue(new Error("No handler registered for 'fleet:invoke'"));
    expect(await bridge.invoke('profiles.list', {})).toMatchObject({ ok: false, error: { kind: 'internal' } });
  });

  it('delivers only the subscribed event, only its payload, until unsubscribed', () => {
    const listener = vi.fn();
    const stop = bridge.on('profiles.changed', listener);
    const ipcEvent = { sender: 'must not reach the page' };
    electron.ipcRenderer.emit(IPC_EVENT, ipcEvent, 'orgs.changed', { orgs: [] });
    expect(listener).not.toHaveBeenCalled();
    electron.ipcRenderer.emit(IPC_EVENT, ipcEvent, 'profiles.changed', { activeId: 'a' });
    expect(listener).toHaveBeenCalledExactlyOnceWith({ activeId: 'a' });
    expect(electron.ipcRenderer.listenerCount(IPC_EVENT)).toBe(1);
    stop();
    expect(electron.ipcRenderer.listenerCount(IPC_EVENT)).toBe(0);
    electron.ipcRenderer.emit(IPC_EVENT, ipcEvent, 'profiles.changed', { activeId: 'b' });
    expect(listener).toHaveBeenCalledOnce();
  });

  it('refuses to listen to an unknown event', () => {
    expect(() => bridge.on('ipc.raw' as EventName, () => {})).toThrow(TypeError);
    expect(electron.ipcRenderer.listenerCount(IPC_EVENT)).toBe(0);
  });
});
