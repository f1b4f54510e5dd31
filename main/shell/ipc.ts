/**
 * The IPC end of the bridge: one `ipcMain.handle` for every channel, which turns the Electron event
 * into a `BridgeSender` and lets the router (main/backend/router.ts) check, parse and dispatch.
 * Whatever happens, the renderer gets a result envelope back, never a rejected invoke.
 */
import { ipcMain, type IpcMainInvokeEvent } from 'electron';
import { IPC_INVOKE } from '../../common/bridge';
import { err, type Result, type WireResult } from '../../common/result';
import type { BridgeHost, BridgeSender } from '../backend/router';
import { isAppUrl, type AppLocation } from './app-url';

type Log = (message: string) => void;

export function toBridgeSender(event: IpcMainInvokeEvent): BridgeSender {
  return { transport: 'ipc', url: event.senderFrame?.url ?? '', id: event.sender.id };
}

/**
 * Who may use the bridge: a frame showing the app's own page (`location`) in one of the app's own
 * windows (`isAppWebContents`). The URL alone is not enough (any webContents could load our file),
 * nor is the window alone (its page could have been navigated away, were a guard ever to fail).
 */
export function createSenderCheck(location: AppLocation, isAppWebContents: (id: number) => boolean): (sender: BridgeSender) => boolean {
  return (sender) => sender.transport === 'ipc' && isAppWebContents(sender.id) && isAppUrl(location, sender.url);
}

/** Only a window's top frame speaks for the app; an iframe inside it never does, whatever it shows. */
function isTopFrame(event: IpcMainInvokeEvent): boolean {
  const frame = event.senderFrame;
  return frame !== null && frame.parent === null;
}

/** Same words as the router's refusal, so the renderer cannot tell which check said no. */
const denied = (): Result<never> => err('permission-denied', 'This window is not allowed to use the Fleet Desk bridge.');

/** The handler itself, exported so tests can call it with a fabricated event. */
export function createInvokeHandler(host: BridgeHost, log: Log) {
  return async (event: IpcMainInvokeEvent, channel: unknown, payload: unknown): Promise<WireResult<unknown>> => {
    if (!isTopFrame(event)) {
      log(`bridge: rejected a call from a subframe (${event.senderFrame?.url ?? 'unknown frame'})`);
      return denied();
    }
    try {
      return await host.dispatchWire(toBridgeSender(event), channel, payload);
    } catch (e) {
      // The router itself does not throw; this is a backend that failed to open, or a bug in a sender check.
      log(`bridge: ${String(channel)} failed before reaching a handler: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      return err('internal', `The app's backend could not take the call: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
}

/** Registers the one IPC handler; returns the function that removes it. */
export function registerBridgeIpc(host: BridgeHost, log: Log): () => void {
  ipcMain.handle(IPC_INVOKE, createInvokeHandler(host, log));
  return () => ipcMain.removeHandler(IPC_INVOKE);
}
