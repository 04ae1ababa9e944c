import { mount } from 'svelte';
import './app.css';
import './styles/panels.css';
import App from './App.svelte';
import { inTauri, tauriBackend } from './lib/backend';
import { createXtermSurface } from './lib/xtermSurface';

const target = document.getElementById('app');
if (!target) throw new Error('index.html lacks the #app element');

// In a plain browser (no Tauri IPC bridge) the in-memory fake drives the UI, so the page can
// be developed and screenshotted without the Rust side. Loaded only there: the desktop window
// does not carry the fake and the engine's recorded replies it serves.
const backend = inTauri() ? tauriBackend() : (await import('./lib/fakeDemo')).demoBackend();

mount(App, { target, props: { backend, terminals: createXtermSurface } });
