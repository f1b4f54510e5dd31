import { mount } from 'svelte';
import './styles/global.css';
import App from './App.svelte';
import { resolveBridge } from './lib/bridge/bridge';
import { takeOverFrame } from './lib/shell/boot-frame';

const target = document.getElementById('app');
if (!target) throw new Error('index.html has no #app element');

const setup = resolveBridge(window);
// index.html's frame of the shell goes in the task the app mounts in (no frame is ever drawn with
// neither) or, when main drew the fleet tree into it, once the app has drawn its own tree.
const frame = takeOverFrame(target);
try {
  mount(App, { target: frame.root, props: { bridge: setup.bridge, transport: setup.kind === 'browser' ? setup.transport : null, ontreeshown: () => frame.uncover('tree') } });
} catch (e) {
  // A frame of the last run over an app that could not start would look like a hang.
  frame.uncover('failed');
  throw e;
}
