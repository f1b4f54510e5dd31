/**
 * The sandboxed preload: builds the bridge from common/ over IPC and exposes it as `window.fleet`.
 * Nothing else crosses into the page: not ipcRenderer, not the IPC event (its `sender` could be
 * used to send anything), not Node. Bundled to CommonJS requiring only 'electron' (a sandboxed
 * preload can require nothing else).
 */
import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron';
import { BRIDGE_GLOBAL, createBridge, IPC_EVENT, IPC_INVOKE } from '../common/bridge';

const bridge = createBridge({
  invoke: (channel, request) => ipcRenderer.invoke(IPC_INVOKE, channel, request),
  subscribe: (event, listener) => {
    const handler = (_event: IpcRendererEvent, name: unknown, payload: unknown): void => {
      if (name === event) listener(payload);
    };
    ipcRenderer.on(IPC_EVENT, handler);
    return () => {
      ipcRenderer.removeListener(IPC_EVENT, handler);
    };
  },
  // A dropped file's path, so main streams it from disk (File.path is gone since Electron 32).
  pathForFile: (file) => webUtils.getPathForFile(file as File),
});

contextBridge.exposeInMainWorld(BRIDGE_GLOBAL, bridge);
