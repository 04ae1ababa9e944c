/** What components get from the app root through Svelte context. */
import { getContext, setContext } from 'svelte';
import type { AppState } from './appState.svelte';
import type { Backend } from './backend';
import type { TerminalFactory } from './terminalSurface';

export interface AppContext {
  app: AppState;
  backend: Backend;
  terminals: TerminalFactory;
}

const KEY = Symbol('switchboard-app');

export function provideAppContext(context: AppContext): void {
  setContext(KEY, context);
}

export function appContext(): AppContext {
  const context = getContext<AppContext | undefined>(KEY);
  if (!context) throw new Error('appContext() used outside <App>: the component needs the app context');
  return context;
}
