import { mount } from 'svelte';
import './styles/global.css';
import App from './App.svelte';
import { resolveBridge } from './lib/bridge/bridge';

const target = document.getElementById('app');
if (!target) throw new Error('index.html has no #app element');

const setup = resolveBridge(window);
mount(App, { target, props: { bridge: setup.bridge, transport: setup.kind === 'browser' ? setup.transport : null } });
