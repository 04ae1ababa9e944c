import { mount } from 'svelte';
import './app.css';
import './styles/panels.css';
import App from './App.svelte';
import { inTauri, tauriBackend } from './lib/backend';
import { createXtermSurface } from './lib/xtermSurface';

const target = document.getElementById('app');
if (!target) throw new Error('index.html lacks the #app element');

/** The mark an engine puts in the page's head when it serves the page itself, to a browser. */
function servedByEngine(): boolean {
  return document.querySelector('meta[name="switchboard-web"]')?.getAttribute('content') === 'engine';
}

// In the desktop window, the shell. In a page an engine served, that engine over its WebSocket.
// In any other browser (no Tauri IPC bridge, no engine) the in-memory fake drives the UI, so the
// page can be developed and screenshotted without the Rust side. The fake and the WebSocket
// client are each loaded only where they run: the desktop window loads neither.
const backend = inTauri()
  ? tauriBackend()
  : servedByEngine()
    ? (await import('./lib/webBackend')).webBackend()
    : (await import('./lib/fakeDemo')).demoBackend();
// A page an engine served shows its notices as the system's too, where the browser lets it.
if (servedByEngine()) (await import('./lib/systemNotices')).registerWorker();

mount(App, { target, props: { backend, terminals: createXtermSurface } });
