/**
 * The engine's overview of all agents, kept fresh for a view (the dashboard, the graph): asked
 * as the view opens, then at each of the window's beats (`beat.ts`), its answer shown together
 * with everything else that changes then. However fast the agents' statuses change, the view
 * changes once a second. Each agent's attention is the one the window shows (`shownOverview`):
 * unknown while its machine is disconnected.
 */
import { onDestroy } from 'svelte';
import type { AppState } from './appState.svelte';
import type { Backend } from './backend';
import type { Overview } from './bindings';
import { shownOverview, type ShownOverview } from './attention';
import { toApiError, userMessage } from './errors';

export class OverviewFeed {
  /** The overview as the engine last answered it. */
  #loaded: Overview | null = $state.raw(null);
  #app: AppState;
  /** Why the last request failed, in words; null once one succeeds. */
  error: string | null = $state(null);

  /** Call during a component's setup: it follows the app's beat and stops with the component. */
  constructor(app: AppState, backend: Backend) {
    this.#app = app;
    let stopped = false;
    /** Asks the engine; what it answers is shown when `commit` runs. */
    const ask = () =>
      backend.flowOverview().then(
        (loaded) => () => {
          if (stopped) return;
          this.#loaded = loaded;
          this.error = null;
        },
        (reason: unknown) => () => {
          if (!stopped) this.error = userMessage(toApiError(reason));
        },
      );
    // The first answer is shown as it comes: the view is not left empty until the beat.
    void ask().then((commit) => commit());
    const leave = app.onBeat(ask);
    onDestroy(() => {
      stopped = true;
      leave();
    });
  }

  /** The overview as the window shows it; null until the engine first answered. */
  get overview(): ShownOverview | null {
    return this.#loaded && shownOverview(this.#loaded, this.#app.model.profiles, this.#app.hostLinks);
  }
}
