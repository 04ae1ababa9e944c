/**
 * The room of the window's state about the app's settings and the notices about its data:
 * whether the data can be written, and keeping the settings (the terminal grid's among them).
 */
import type { EngineEvent, Settings, TerminalGrid } from './bindings';
import { logFailure } from './errors';
import { applyStorageEvent, type StorageState } from './storage';
import { DEFAULT_SETTINGS, applySettingsEvent } from './settings';
import { DevicesState } from './appDevices.svelte';

export abstract class SettingsState extends DevicesState {
  /** The app's settings: the engine's defaults until it answered, then as saved. */
  settings: Settings = $state.raw(DEFAULT_SETTINGS);
  /** Whether the data can be written (null until known). */
  storage: StorageState | null = $state.raw(null);

  protected override applyNow(event: EngineEvent): void {
    super.applyNow(event);
    this.storage = applyStorageEvent(this.storage, event);
    this.settings = applySettingsEvent(this.settings, event);
  }

  /**
   * Whether the data can be written: an engine that could not start on it says so in the app's
   * info (which also names the machine shown, `host`); null when the engine does not answer.
   */
  protected loadStorage(): Promise<StorageState | null> {
    return this.backend.appInfo().then(
      async (info): Promise<StorageState | null> => {
        this.host = info.host;
        if (info.startup_problem) return { dataDir: info.data_dir, problem: info.startup_problem, atStartup: true };
        const status = await this.backend.storageStatus();
        return {
          dataDir: status.data_dir,
          problem: status.problem,
          atStartup: false,
          setAside: { count: status.hook_events_set_aside, file: status.set_aside_file },
        };
      },
      () => null,
    );
  }

  /** Gets the settings; without them the window goes on with the defaults. */
  protected loadSettings(): Promise<Settings> {
    return this.backend.getSettings().catch((reason: unknown) => {
      logFailure('get_settings')(reason);
      return DEFAULT_SETTINGS;
    });
  }

  /**
   * Keep what the grid shows. The grid follows the change at once: two edits in a row build
   * on each other, not on what the engine last answered; a refusal puts back what it was and
   * rejects with an ApiError.
   */
  async saveGrid(grid: TerminalGrid): Promise<void> {
    const before = this.settings;
    this.settings = { ...before, terminal_grid: grid };
    try {
      await this.saveSettings(this.settings);
    } catch (reason) {
      if (this.settings.terminal_grid === grid) this.settings = { ...this.settings, terminal_grid: before.terminal_grid };
      throw reason;
    }
  }

  /** Keep the settings; resolves with them as the engine kept them, rejects with an ApiError. */
  async saveSettings(settings: Settings): Promise<Settings> {
    const kept = await this.backend.setSettings(settings);
    this.settings = kept;
    return kept;
  }
}
