/**
 * Sends what the user types to one session, in order.
 *
 * Each write is an IPC call, and the shell runs calls concurrently: two keystrokes sent as two
 * independent calls can reach the agent swapped. So at most one write is in flight; whatever
 * is typed meanwhile is coalesced and sent, in order, when it completes. Fast typing and pastes
 * arrive intact and with fewer calls.
 */
export class InputQueue {
  #pending = '';
  #inFlight = false;
  readonly #send: (data: string) => Promise<void>;
  readonly #onError: (reason: unknown) => void;

  constructor(send: (data: string) => Promise<void>, onError: (reason: unknown) => void) {
    this.#send = send;
    this.#onError = onError;
  }

  push(data: string): void {
    if (data === '') return;
    this.#pending += data;
    void this.#pump();
  }

  /** True while nothing is waiting or in flight. */
  get idle(): boolean {
    return !this.#inFlight && this.#pending === '';
  }

  async #pump(): Promise<void> {
    if (this.#inFlight || this.#pending === '') return;
    const data = this.#pending;
    this.#pending = '';
    this.#inFlight = true;
    try {
      await this.#send(data);
    } catch (reason) {
      this.#onError(reason);
    } finally {
      this.#inFlight = false;
      void this.#pump();
    }
  }
}
