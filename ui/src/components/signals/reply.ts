/**
 * The response one signal dialog sends: which response is in flight (one at a time), and why
 * the last one was refused, by the engine (which answer or field lacks what, in its words) or,
 * for a delegation with no agent chosen, before sending. Shared by the dialog's frame and the
 * part for the signal's kind.
 */
import { Action } from '../../lib/action.svelte';
import type { ErrorCode, SignalInfo, SignalResponse } from '../../lib/bindings';
import { toApiError } from '../../lib/errors';
import { allowedActions, responseErrorText, type ResponseProblem, type SignalAction } from '../../lib/signals';

/** A refused response: by the engine (with its code) or before sending (with the field at fault). */
export interface ReplyError {
  text: string;
  code: ErrorCode | null;
  problem: ResponseProblem | null;
}

/** The fields a response's refusal may name: `answers.1` is the second answer. */
const REFUSED_FIELD = /^(answers|resolution|fix|reason)(?:\.(\d+))?$/;

function engineRefusal(reason: unknown): ReplyError {
  const error = toApiError(reason);
  const named = error.code === 'invalid_input' && error.field !== null ? REFUSED_FIELD.exec(error.field) : null;
  const problem = named ? { field: named[1] as ResponseProblem['field'], index: named[2] === undefined ? null : Number(named[2]), message: error.message } : null;
  return { text: problem?.message ?? responseErrorText(error), code: error.code, problem };
}

export class SignalReply {
  readonly #sending = new Action<SignalAction, ReplyError>({ exclusive: true, describe: engineRefusal });
  readonly #signal: () => SignalInfo;
  readonly #send: (response: SignalResponse) => Promise<void>;
  readonly #mayAnswer: () => boolean;

  /**
   * `signal` reads the dialog's signal as it is now; `send` delivers a checked response;
   * `mayAnswer` says whether this page answers at all (a page paired to look only does not).
   */
  constructor(signal: () => SignalInfo, send: (response: SignalResponse) => Promise<void>, mayAnswer: () => boolean = () => true) {
    this.#signal = signal;
    this.#send = send;
    this.#mayAnswer = mayAnswer;
  }

  /** The response in flight, by its action; null when none is. */
  get busy(): SignalAction | null {
    return this.#sending.busy;
  }

  get error(): ReplyError | null {
    return this.#sending.error;
  }

  /** Whether `action` may be sent now: the signal waits for the user, its protocol allows it, and this page answers. */
  can(action: SignalAction): boolean {
    const signal = this.#signal();
    return signal.state === 'pending' && this.#mayAnswer() && allowedActions(signal).includes(action);
  }

  /** Whether the last response was refused for `field` (answer `index`), to mark that field. */
  invalid(field: ResponseProblem['field'], index: number | null = null): boolean {
    const problem = this.error?.problem;
    return problem?.field === field && (problem.index === null || problem.index === index);
  }

  /** Send `response`, unless one is in flight; a refusal lands in `error`. */
  async respond(response: SignalResponse): Promise<void> {
    if (this.busy !== null) return;
    if ((response.action === 'approve' || response.action === 'delegate_blocked') && response.profile_id === '') {
      const problem: ResponseProblem = { field: 'profile_id', index: null, message: 'Choose the agent that takes the work.' };
      this.#sending.error = { text: problem.message, code: null, problem };
      return;
    }
    await this.#sending.run(response.action, () => this.#send(response));
  }
}
