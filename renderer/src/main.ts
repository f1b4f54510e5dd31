import { mount } from 'svelte';
import './styles/global.css';
import App from './App.svelte';
import { resolveBridge } from './lib/bridge/bridge';

const target = document.getElementById('app');
if (!target) throw new Error('index.html has no #app element');

const setup = resolveBridge(window);
// index.html's frame of the shell goes in the task the app mounts in: no frame is ever drawn with neither.
target.replaceChildren();
mount(App, { target, props: { bridge: setup.bridge, transport: setup.kind === 'browser' ? setup.transport : null } });
