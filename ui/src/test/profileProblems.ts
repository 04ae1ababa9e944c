/**
 * The engine's problems with an agent, in its words (`validate.rs`), for `setProfileProblems`:
 * the fake finds no taken name, missing program or folder itself.
 */
import type { ProfileProblem } from '../lib/bindings';
import presets from './presets.json';

export const nameMissing = (): ProfileProblem => ({ field: 'name', message: 'Give the agent a name.' });

export const nameTaken = (name: string): ProfileProblem => ({ field: 'name', message: `Another agent is already called “${name}”. Choose a different name.` });

export const programMissing = (program: string): ProfileProblem => ({
  field: 'command',
  message: `No program named “${program}” was found on PATH. Check the spelling, or give the program's full path.`,
});

/** The CLI of a preset kind (`claude-code`, `codex`) is not on PATH: how to install it. */
export function cliMissing(kind: string): ProfileProblem {
  const preset = presets.find((p) => p.kind === kind);
  if (preset === undefined) throw new Error(`no preset of kind ${kind}`);
  return {
    field: 'command',
    message: `${preset.label} is not installed: there is no program named “${preset.command}” on PATH. Install it with ${preset.install}, then try again.`,
  };
}

export const folderMissing = (path: string): ProfileProblem => ({ field: 'cwd', message: `There is no folder at ${path}.` });

export const notInRepository = (): ProfileProblem => ({
  field: 'isolation',
  message: 'Tasks can work in worktrees of their own only when the folder is inside a git repository; this one is not.',
});
