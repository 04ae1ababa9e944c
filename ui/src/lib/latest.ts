/**
 * Asks for something whose answer is only ever wanted fresh (an overview of all agents, a
 * screen preview): one request in flight at a time and at most one every `minIntervalMs`. A
 * request made meanwhile is not lost: one more runs once the gap has passed, so the last
 * change always gets an answer.
 */
export interface Latest {
  request(): void;
  /** No further requests run (the view closed). */
  stop(): void;
}

export function latest(load: () => Promise<unknown>, minIntervalMs: number): Latest {
  let inFlight = false;
  let again = false;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = () => {
    if (stopped) return;
    if (inFlight) {
      again = true;
      return;
    }
    inFlight = true;
    load()
      .catch(() => undefined)
      .finally(() => {
        timer = setTimeout(() => {
          inFlight = false;
          if (again) {
            again = false;
            run();
          }
        }, minIntervalMs);
      });
  };
  return {
    request: run,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
