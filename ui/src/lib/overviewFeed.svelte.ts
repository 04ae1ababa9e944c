/**
 * The engine's overview of all agents, kept fresh for a view (the dashboard, the graph): asked
 * again whenever agents, tasks, signals, delegations, loops or attention change, at most every
 * 250 ms with one request in flight (agents' statuses can change a hundred times a second).
 */
import { onDestroy } from 'svelte';
import type { AppState } from './appState.svelte';
import type { Backend } from './backend';
import type { Overview } from './bindings';
import { toApiError, userMessage } from './errors';
import { latest } from './latest';

const MIN_INTERVAL_MS = 250;

export class OverviewFeed {
  overview: Overview | null = $state.raw(null);
  /** Why the last request failed, in words; null once one succeeds. */
  error: string | null = $state(null);

  /** Call during a component's setup: it follows the app and stops with the component. */
  constructor(app: AppState, backend: Backend) {
    const requests = latest(
      () =>
        backend.flowOverview().then(
          (loaded) => {
            this.overview = loaded;
            this.error = null;
          },
          (reason: unknown) => (this.error = userMessage(toApiError(reason))),
        ),
      MIN_INTERVAL_MS,
    );
    onDestroy(() => requests.stop());
    $effect(() => {
      void [app.model, app.tasks, app.signals, app.agentStatus, app.delegations, app.loops, app.attention];
      requests.request();
    });
  }
}
