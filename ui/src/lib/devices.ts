/**
 * The Devices pane's decisions and words: whether the engine serves browsers, a pairing code's
 * QR code and how long it stays valid, the paired browsers as the user reads them, and the
 * engine's refusals in the user's words. Pure, so each is a table test.
 */
import type { ApiError, Device, EngineEvent, PairingCode, WebStatus } from './bindings';
import { asSentence, userMessage } from './errors';
import { formatTime } from './model';

/**
 * What the pane says of serving: off, serving at an address (`local`: on a loopback address, so
 * only this computer reaches it), or on but unable to serve.
 */
export type Serving =
  | { state: 'off' }
  | { state: 'serving'; url: string; local: boolean }
  | { state: 'failing'; problem: string }
  | { state: 'starting' };

export function servingOf(status: WebStatus): Serving {
  if (!status.settings.serving) return { state: 'off' };
  if (status.problem !== null) return { state: 'failing', problem: `Switchboard cannot serve browsers: ${asSentence(status.problem)}` };
  // Set to serve, neither serving nor saying why: the engine has not bound its address yet.
  if (status.url === null) return { state: 'starting' };
  return { state: 'serving', url: status.url, local: status.settings.listen === null || isLoopback(status.settings.listen) };
}

/** Whether `ADDR:PORT` (as the settings keep it: `[::1]:7780` for IPv6) names this computer alone. */
export function isLoopback(listen: string): boolean {
  const colon = listen.lastIndexOf(':');
  const host = (colon < 0 ? listen : listen.slice(0, colon)).replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return /^127(\.\d{1,3}){3}$/.test(host) || host === '::1' || host === 'localhost';
}

/**
 * The largest QR code drawn, in modules a side with its quiet zone: version 40 is 177 modules,
 * and the engine adds a few on each side. Anything larger is no QR code and is not drawn.
 */
export const QR_MAX_MODULES = 200;

/** A run of dark modules in one row of a QR code: drawn as one rect, so no seam shows between them. */
export interface QrRun {
  x: number;
  y: number;
  width: number;
}

/** The QR code the engine sent (`#` a dark module), as the runs of dark modules to draw, and its side. */
export function qrDrawing(rows: readonly string[]): { size: number; runs: QrRun[] } {
  const shown = rows.slice(0, QR_MAX_MODULES).map((row) => row.slice(0, QR_MAX_MODULES));
  const size = Math.max(shown.length, ...shown.map((row) => row.length), 0);
  const runs: QrRun[] = [];
  shown.forEach((row, y) => {
    for (const match of row.matchAll(/#+/g)) runs.push({ x: match.index, y, width: match[0].length });
  });
  return { size, runs };
}

/** How long a code stays valid: valid with the time left ("4:32"), or expired. */
export type CodeClock = { state: 'valid'; left: string } | { state: 'expired' };

export function codeClock(code: Pick<PairingCode, 'expires_at'>, now: number): CodeClock {
  const seconds = Math.ceil((code.expires_at - now) / 1000);
  if (seconds <= 0) return { state: 'expired' };
  return { state: 'valid', left: `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}` };
}

/**
 * The browser a code paired, as far as the window can tell: one that was not paired when the code
 * was given (`known`: the ids then; null when the list was not known, and nothing is told) and
 * got what the code gives (its access, and its name if the code named one). The engine does not
 * say which code a browser used: one given elsewhere (`switchboard web pair`) and used meanwhile
 * may be taken for it, and the pane then only says a browser was paired.
 */
export function pairedByCode(code: Pick<PairingCode, 'read_only' | 'name'>, known: ReadonlySet<string> | null, devices: readonly Device[] | null): Device | null {
  if (known === null || devices === null) return null;
  return devices.find((d) => !known.has(d.id) && d.read_only === code.read_only && (code.name === null || d.name === code.name)) ?? null;
}

/** What the device may do, in a word or two. */
export function accessWords(device: Pick<Device, 'read_only'>): string {
  return device.read_only ? 'looks only' : 'full access';
}

/** Where the device is: connected now, or when and from where it was last seen. */
export function seenWords(device: Pick<Device, 'connected' | 'last_seen_at' | 'last_from'>, now: number): string {
  if (device.connected) return 'connected';
  return `last seen ${formatTime(device.last_seen_at, new Date(now))} from ${device.last_from}`;
}

/** The question asked before unpairing. */
export function unpairQuestion(device: Pick<Device, 'name'>): string {
  return `Unpair ${device.name}? Its open pages close at once.`;
}

/** What the pane was doing when the engine refused. */
export type DeviceAct = { act: 'serve' } | { act: 'pair' } | { act: 'unpair'; name: string } | { act: 'list' };

/** The engine's refusal, in the user's words for what the pane was doing. */
export function deviceProblem(error: ApiError, doing: DeviceAct): string {
  if (error.code === 'not_allowed') return 'Pairing and unpairing are done at the computer Switchboard runs on, not from a paired browser.';
  if (error.code === 'invalid_input' && error.field === 'web') return 'Switchboard does not serve browsers now: turn serving on first.';
  if (error.code === 'not_found' && doing.act === 'unpair') return `${doing.name} is no longer paired.`;
  if (error.code === 'engine_stopped') return 'Switchboard’s engine has stopped: start it again, then try again.';
  return userMessage(error);
}

/** The devices once an event is heard: the engine sends the whole list at each change. */
export function applyDevicesEvent(devices: readonly Device[] | null, event: EngineEvent): readonly Device[] | null {
  return event.type === 'devices_changed' ? event.devices : devices;
}

/** Whether and where the engine serves, once an event is heard. */
export function applyWebEvent(status: WebStatus | null, event: EngineEvent): WebStatus | null {
  return event.type === 'web_changed' ? event.status : status;
}
