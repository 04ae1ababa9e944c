/**
 * One of the engine's cost reports, kept fresh for a view (the dashboard's today, an agent's
 * today and last week): asked as the view opens, then again whenever any task's tokens change
 * (the engine tells each task's as it counts them), at most once every `REFRESH_MS` however fast
 * they do. Where the report counts from is asked anew each time (a span back from now moves on);
 * today is each engine's own.
 */
import { onDestroy, untrack } from 'svelte';
import type { AppState } from './appState.svelte';
import type { CostGrouping, CostReport, CostSince, EngineCommands } from './bindings';
import { tokensKey } from './cost';
import { toApiError, userMessage } from './errors';
import { latest } from './latest';

/** The least time between two asks of one report. */
export const REFRESH_MS = 5000;

export class CostFeed {
  /** The report as the engine last answered it; null until it first did. */
  report: CostReport | null = $state.raw(null);
  /** Why the last ask failed, in words; null once one succeeds. */
  error: string | null = $state(null);

  /**
   * Call during a component's setup: it follows the tasks and stops with the component. `engine`:
   * the engine asked (a report is one machine's: the window's own, or the one an agent runs on).
   */
  constructor(app: AppState, engine: Pick<EngineCommands, 'costReport'>, since: () => CostSince, by: CostGrouping) {
    let stopped = false;
    const asking = latest(async () => {
      try {
        const report = await engine.costReport(since(), by);
        if (stopped) return;
        this.report = report;
        this.error = null;
      } catch (reason) {
        if (!stopped) this.error = userMessage(toApiError(reason));
      }
    }, REFRESH_MS);
    $effect(() => {
      void tokensKey(app.tasks.tasks);
      untrack(() => asking.request());
    });
    onDestroy(() => {
      stopped = true;
      asking.stop();
    });
  }
}
