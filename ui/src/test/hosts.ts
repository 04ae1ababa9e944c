/**
 * Other machines as the shell reports them (`list_hosts`, `add_host`), for `seedHost` and
 * `answerNext('add_host', …)`: a machine's state and its words are the shell's (`words_of` in
 * `crates/switchboard-client/src/hosts.rs`), so each test gives the words it expects shown.
 */
import type { HostCondition, HostState } from '../lib/bindings';
import { FakeBackend } from '../lib/fakeBackend';

/** A machine in the given state, said in `words`; the fields not given empty. */
export function machineState(destination: string, state: HostCondition, words: string, fields: Partial<HostState> = {}): HostState {
  return { destination, port: null, remote_program: null, state, version: null, agents_running: null, problem: null, words, unknown_key: null, ...fields };
}

/** A machine whose Switchboard 0.1.0 answered, with `running` agents there. */
export function answering(destination: string, running: number, words: string, fields: Partial<HostState> = {}): HostState {
  return machineState(destination, 'connected', words, { version: '0.1.0', agents_running: running, ...fields });
}

/** A machine that did not answer: the shell says what stands in the way. */
export function notAnswering(destination: string, state: Exclude<HostCondition, 'connected'>, problem: string, fields: Partial<HostState> = {}): HostState {
  return machineState(destination, state, problem, { problem, ...fields });
}

/** A machine whose key ssh does not know yet: the key is shown, nothing is added. */
export function keyNotKnown(destination: string, fields: Partial<HostState> = {}): HostState {
  return notAnswering(destination, 'unknown_host_key', `The key of ${destination} is not known yet.`, {
    unknown_key: { key_type: 'ED25519', fingerprint: FakeBackend.FAKE_FINGERPRINT },
    ...fields,
  });
}
