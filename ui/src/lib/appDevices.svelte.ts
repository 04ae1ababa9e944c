/**
 * The room of the window's state about the browsers the engine serves the window to: whether
 * and where it serves, the browsers paired (live, as the engine tells each change), and whether
 * this window is itself one of them (a page the engine served), which is never offered pairing.
 * A pairing code is not kept here: it is the Devices pane's alone, forgotten when it closes.
 */
import type { Device, EngineEvent, PairingCode, WebStatus } from './bindings';
import { logFailure } from './errors';
import { applyDevicesEvent, applyWebEvent } from './devices';
import { MachinesState } from './appMachines.svelte';

export abstract class DevicesState extends MachinesState {
  /** Whether and where the engine serves browsers; null until asked (the Devices pane asks). */
  web: WebStatus | null = $state.raw(null);
  /** The browsers paired, most recently seen first; null until asked. */
  devices: readonly Device[] | null = $state.raw(null);
  /**
   * The paired browser this window is, as the engine says: null in the desktop window,
   * undefined until it answered (or when it could not).
   */
  thisDevice: Device | null | undefined = $state.raw(undefined);
  /** Events heard about serving and about the devices: a list asked for before one of them is older than it. */
  #webHeard = 0;
  #devicesHeard = 0;

  /** Pairing is offered only where the engine said this window is no paired browser. */
  get devicesOffered(): boolean {
    return this.thisDevice === null;
  }

  protected override applyNow(event: EngineEvent): void {
    super.applyNow(event);
    if (event.type === 'web_changed') this.#webHeard++;
    if (event.type === 'devices_changed') this.#devicesHeard++;
    this.web = applyWebEvent(this.web, event);
    this.devices = applyDevicesEvent(this.devices, event);
  }

  /** Asks the engine which paired browser this window is, if any. */
  protected loadThisDevice(): void {
    this.backend.thisDevice().then((device) => (this.thisDevice = device), logFailure('this_device'));
  }

  /**
   * Asks whether and where the engine serves and which browsers are paired; rejects with an
   * ApiError. An answer is taken unless an event told newer news while it was on its way.
   */
  async loadDevices(): Promise<void> {
    const [webHeard, devicesHeard] = [this.#webHeard, this.#devicesHeard];
    const [web, devices] = await Promise.all([this.backend.webStatus(), this.backend.listDevices()]);
    if (this.#webHeard === webHeard) this.web = web;
    if (this.#devicesHeard === devicesHeard) this.devices = devices;
  }

  /** Serves browsers, or stops, keeping the other settings; rejects with an ApiError. */
  async setServing(serving: boolean): Promise<void> {
    const settings = this.web?.settings ?? (await this.backend.webStatus()).settings;
    this.web = await this.backend.setWeb({ ...settings, serving });
  }

  /** A new one-time code that pairs a browser; rejects with an ApiError. */
  pairBrowser(readOnly: boolean, name: string | null): Promise<PairingCode> {
    return this.backend.pairDevice(readOnly, name);
  }

  /** Unpairs a browser: its open pages close at once. Rejects with an ApiError. */
  async unpair(device: Device): Promise<void> {
    await this.backend.revokeDevice(device.id);
    this.devices = (this.devices ?? []).filter((d) => d.id !== device.id);
  }
}
