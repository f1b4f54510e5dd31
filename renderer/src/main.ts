import { mount } from 'svelte';
import './styles/global.css';
import App from './App.svelte';
import { resolveBridge } from './lib/bridge/bridge';
import { FRAME_COVER_MS, takeOverFrame } from './lib/shell/boot-frame';

const target = document.getElementById('app');
if (!target) throw new Error('index.html has no #app element');

const setup = resolveBridge(window);
// index.html's frame of the shell goes in the task the app mounts in (no frame is ever drawn with
// neither) or, when main drew the fleet tree into it, once the app has drawn its own tree.
const frame = takeOverFrame(target);
mount(App, { target, props: { bridge: setup.bridge, transport: setup.kind === 'browser' ? setup.transport : null, ontreeshown: frame.uncover } });
frame.covering(FRAME_COVER_MS);
