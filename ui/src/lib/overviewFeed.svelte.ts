/**
 * The engine's overview of all agents, kept fresh for a view (the dashboard, the graph): asked
 * again whenever agents, tasks, signals, delegations, loops or attention change, at most every
 * 250 ms with one request in flight (agents' statuses can change a hundred times a second).
 * Each agent's attention is the one the window shows (`shownOverview`): unknown while its
 * machine is disconnected.
 */
import { onDestroy } from 'svelte';
import type { AppState } from './appState.svelte';
import type { Backend } from './backend';
import type { Overview } from './bindings';
import { shownOverview, type ShownOverview } from './attention';
import { toApiError, userMessage } from './errors';
import { latest } from './latest';

const MIN_INTERVAL_MS = 250;

export class OverviewFeed {
  /** The overview as the engine last answered it. */
  #loaded: Overview | null = $state.raw(null);
  #app: AppState;
  /** Why the last request failed, in words; null once one succeeds. */
  error: string | null = $state(null);

  /** Call during a component's setup: it follows the app and stops with the component. */
  constructor(app: AppState, backend: Backend) {
    this.#app = app;
    const requests = latest(
      () =>
        backend.flowOverview().then(
          (loaded) => {
            this.#loaded = loaded;
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

  /** The overview as the window shows it; null until the engine first answered. */
  get overview(): ShownOverview | null {
    return this.#loaded && shownOverview(this.#loaded, this.#app.model.profiles, this.#app.hostLinks);
  }
}
