/**
 * A view's user actions against the engine (stop, requeue, respond, save …): which one is in
 * flight, to disable its button and say "Sending…", and what the last one failed with, in
 * words for the user. One instance per view; its fields are reactive state.
 */
import { toApiError, userMessage } from './errors';

/** Turns a rejection (an `ApiError`, or whatever else was thrown) into what the view shows. */
export type Describe<E> = (reason: unknown) => E;

/** The user-facing message of a rejection (see `userMessage`). */
export const errorMessage: Describe<string> = (reason) => userMessage(toApiError(reason));

export interface ActionOptions<E> {
  /**
   * Refuse a second action while one is in flight (a form that must not be sent twice).
   * Without it a second action starts too; views that allow that disable only the button of
   * the action in flight.
   */
  exclusive?: boolean;
  /** What a failure shows; `errorMessage` unless given (and required for a non-string error). */
  describe?: Describe<E>;
}

export class Action<K extends string, E = string> {
  /** The action in flight, by the name the view gave it; null when none is. */
  busy: K | null = $state(null);
  /**
   * What the last action failed with; null once the next one starts. A view may also set it
   * itself, for a problem found before anything was sent.
   */
  error: E | null = $state(null);

  readonly #exclusive: boolean;
  readonly #describe: Describe<E>;

  constructor(...[options]: string extends E ? [ActionOptions<E>?] : [ActionOptions<E> & { describe: Describe<E> }]) {
    this.#exclusive = options?.exclusive ?? false;
    // Without `describe` the error type is a string (the constructor's type demands it).
    this.#describe = options?.describe ?? (errorMessage as Describe<unknown> as Describe<E>);
  }

  /**
   * Run `action` as `kind`: busy while it runs, its failure kept in `error`. Resolves to true
   * when it succeeded, false when it failed or was refused (exclusive, and one in flight);
   * never rejects.
   */
  async run(kind: K, action: () => Promise<unknown>): Promise<boolean> {
    if (this.#exclusive && this.busy !== null) return false;
    this.busy = kind;
    this.error = null;
    try {
      await action();
      return true;
    } catch (reason) {
      this.error = this.#describe(reason);
      return false;
    } finally {
      this.busy = null;
    }
  }
}
