/**
 * What the window says when Switchboard cannot write its data: a full disk, a read-only folder,
 * or another failure, at start or while it runs. Pure texts; the engine decides which problem
 * it is.
 */
import type { EngineEvent, StorageProblem } from './bindings';

/** The data's state as the window shows it. */
export interface StorageState {
  dataDir: string;
  problem: StorageProblem | null;
  /** The engine could not start on it: nothing works until the app is restarted. */
  atStartup: boolean;
  /** Hook events spooled while the app was closed that could not be read, and where they are kept. */
  setAside?: { count: number; file: string };
}

export function applyStorageEvent(state: StorageState | null, event: EngineEvent): StorageState | null {
  if (event.type !== 'storage_changed' || state?.atStartup) return state;
  return { ...state, dataDir: state?.dataDir ?? '', problem: event.problem, atStartup: false };
}

/** The note on hook events set aside at start, or null when there were none. */
export function setAsideNote(state: StorageState | null): string | null {
  const count = state?.setAside?.count ?? 0;
  if (count === 0 || !state?.setAside) return null;
  const events = count === 1 ? '1 hook event' : `${count} hook events`;
  return `${events} saved while Switchboard was closed could not be read (cut short or garbled). Nothing else was lost; ${count === 1 ? 'it is' : 'they are'} kept in ${state.setAside.file}.`;
}

/** The banner's title and what to do, or null when all is well. */
export function storageBanner(state: StorageState | null): { title: string; advice: string } | null {
  if (!state?.problem) return null;
  const where = state.dataDir ? ` (${state.dataDir})` : '';
  // `hooksLost`: agents' hooks keep what the engine cannot store in a file beside the data, which
  // cannot be written either.
  const what = (() => {
    switch (state.problem.kind) {
      case 'full':
        return { cause: `The disk holding Switchboard's data${where} is full.`, fix: 'Free some space on it', hooksLost: true };
      case 'read_only':
        return {
          cause: `Switchboard's data folder${where} cannot be written: it is read-only or not yours.`,
          fix: 'Make it writable',
          hooksLost: true,
        };
      case 'failing':
        return { cause: `Switchboard cannot write its data${where}: ${state.problem.detail}.`, fix: 'Check the disk', hooksLost: false };
    }
  })();
  if (state.atStartup) {
    return {
      title: 'Switchboard could not open its data',
      advice: `${what.cause} ${what.fix}, then restart Switchboard. No agent was started.`,
    };
  }
  return {
    title: 'Switchboard cannot record its work',
    advice:
      `${what.cause} ${what.fix}; Switchboard notices by itself within a second. Meanwhile your agents keep running and what they finish is shown, and recorded once it can be` +
      (what.hooksLost ? '; what their hooks report may be lost until then.' : '.'),
  };
}

/**
 * The banner for another machine that cannot write its data: it names the machine, and says
 * nothing of this computer's folder (that machine's folder is its own business).
 */
export function hostStorageBanner(host: string, problem: StorageProblem): { title: string; advice: string } {
  const cause = (() => {
    switch (problem.kind) {
      case 'full':
        return `The disk holding Switchboard's data on ${host} is full.`;
      case 'read_only':
        return `Switchboard's data folder on ${host} cannot be written.`;
      case 'failing':
        return `Switchboard on ${host} cannot write its data: ${problem.detail}.`;
    }
  })();
  return {
    title: `Switchboard on ${host} cannot record its work`,
    advice: `${cause} Fix it on ${host}; its agents keep running there. This computer's data is not affected.`,
  };
}
