import { describe, expect, it } from 'vitest';
import type { ApiError, Device, EngineEvent, WebStatus } from './bindings';
import { applyDevicesEvent, applyWebEvent, codeClock, deviceProblem, isLoopback, pairedByCode, qrDrawing, QR_MAX_MODULES, seenWords, servingOf, unpairQuestion, type DeviceAct } from './devices';
import { formatTime } from './model';

const settings = (serving: boolean) => ({ serving, listen: null, tls_cert: null, tls_key: null, names: [] });
const status = (serving: boolean, url: string | null, problem: string | null = null): WebStatus => ({ settings: settings(serving), url, fingerprint: null, problem });

describe('servingOf', () => {
  it.each([
    [status(false, null), { state: 'off' }],
    // Turned off while a problem was kept: off is what the user set.
    [status(false, null, 'another program already listens on 127.0.0.1:7780'), { state: 'off' }],
    [status(true, 'http://127.0.0.1:7780'), { state: 'serving', url: 'http://127.0.0.1:7780', local: true }],
    // On another address (a LAN's, a tailnet's), other machines reach it.
    [
      { ...status(true, 'https://100.64.0.2:7780'), settings: { ...settings(true), listen: '100.64.0.2:7780' } },
      { state: 'serving', url: 'https://100.64.0.2:7780', local: false },
    ],
    [
      status(true, null, 'another program already listens on 127.0.0.1:7780'),
      { state: 'failing', problem: 'Switchboard cannot serve browsers: Another program already listens on 127.0.0.1:7780.' },
    ],
    [status(true, null), { state: 'starting' }],
  ])('%j is %j', (given, expected) => {
    expect(servingOf(given)).toEqual(expected);
  });
});

describe('isLoopback', () => {
  it.each([
    ['127.0.0.1:7780', true],
    ['127.0.0.2:7780', true],
    ['[::1]:7780', true],
    ['localhost:7780', true],
    ['100.64.0.2:7780', false],
    ['192.168.1.2:7780', false],
    ['[fd7a:115c:a1e0::1]:7780', false],
    ['0.0.0.0:7780', false],
    ['1270.0.0.1:7780', false],
  ])('%s: %s', (listen, loopback) => {
    expect(isLoopback(listen)).toBe(loopback);
  });
});

describe('qrDrawing', () => {
  it('draws each row\'s runs of dark modules, quiet zone kept in the size', () => {
    expect(qrDrawing(['    ', ' ## ', ' # #', '    '])).toEqual({
      size: 4,
      runs: [
        { x: 1, y: 1, width: 2 },
        { x: 1, y: 2, width: 1 },
        { x: 3, y: 2, width: 1 },
      ],
    });
  });

  it('draws nothing of an empty code, and no more than a QR code can hold', () => {
    expect(qrDrawing([])).toEqual({ size: 0, runs: [] });
    const huge = qrDrawing(Array.from({ length: QR_MAX_MODULES + 50 }, () => '#'.repeat(QR_MAX_MODULES + 50)));
    expect(huge.size).toBe(QR_MAX_MODULES);
    expect(huge.runs).toHaveLength(QR_MAX_MODULES);
    expect(huge.runs.every((run) => run.width === QR_MAX_MODULES)).toBe(true);
  });
});

describe('codeClock', () => {
  const expires_at = 1_000_000 + 5 * 60_000;
  it.each([
    [1_000_000, { state: 'valid', left: '5:00' }],
    // A part of a second left counts as a second: the code is never said expired early.
    [1_000_000 + 28_500, { state: 'valid', left: '4:32' }],
    [expires_at - 9_000, { state: 'valid', left: '0:09' }],
    [expires_at - 1, { state: 'valid', left: '0:01' }],
    [expires_at, { state: 'expired' }],
    [expires_at + 60_000, { state: 'expired' }],
  ])('at %d: %j', (now, expected) => {
    expect(codeClock({ expires_at }, now)).toEqual(expected);
  });
});

describe('seenWords', () => {
  const now = new Date(2026, 10, 29, 9, 0).getTime();
  const seen = now - 3 * 3600_000;
  it.each([
    [{ connected: true, last_seen_at: seen, last_from: '127.0.0.1' }, 'connected'],
    [{ connected: false, last_seen_at: seen, last_from: '127.0.0.1' }, `last seen ${formatTime(seen, new Date(now))} from 127.0.0.1`],
    [{ connected: false, last_seen_at: seen, last_from: '100.64.0.2' }, `last seen ${formatTime(seen, new Date(now))} from 100.64.0.2`],
  ])('%j: %s', (device, words) => {
    expect(seenWords(device, now)).toBe(words);
  });
});

describe('deviceProblem', () => {
  const error = (code: ApiError['code'], message: string, field: string | null = null): ApiError => ({ code, message, field });
  it.each<[ApiError, DeviceAct, string]>([
    [
      error('invalid_input', 'web: Switchboard is not serving browsers: turn it on first (`switchboard web`, or Devices in the window)', 'web'),
      { act: 'pair' },
      'Switchboard does not serve browsers now: turn serving on first.',
    ],
    [error('not_found', 'no paired browser is phone (`switchboard web devices` lists them)'), { act: 'unpair', name: 'Chrome on Android' }, 'Chrome on Android is no longer paired.'],
    [
      error('not_allowed', '`pair_device` is done only at the computer the engine runs on, not from a paired browser'),
      { act: 'pair' },
      'Pairing and unpairing are done at the computer Switchboard runs on, not from a paired browser.',
    ],
    [error('engine_stopped', 'the engine has shut down'), { act: 'serve' }, 'Switchboard’s engine has stopped: start it again, then try again.'],
    // The engine's own sentence about the address, put as a sentence.
    [
      error('invalid_input', 'listen: 192.168.1.2:7780 is reachable from other machines, which needs HTTPS', 'listen'),
      { act: 'serve' },
      '192.168.1.2:7780 is reachable from other machines, which needs HTTPS.',
    ],
    [error('disk_full', 'database or disk is full'), { act: 'unpair', name: 'x' }, 'The disk is full. Free some space, then try again.'],
  ])('%j while %j', (given, doing, words) => {
    expect(deviceProblem(given, doing)).toBe(words);
  });
});

describe('unpairQuestion', () => {
  it('names the browser and says what unpairing does', () => {
    expect(unpairQuestion({ name: 'Chrome on Android' })).toBe('Unpair Chrome on Android? Its open pages close at once.');
  });
});

describe('the events', () => {
  const phone: Device = { id: 'd1', name: 'Phone', read_only: false, paired_at: 1, last_seen_at: 2, last_from: '127.0.0.1', connected: true };
  const other: EngineEvent = { type: 'profile_deleted', profile_id: 'p1' };
  it('replace the devices with the list each change brings', () => {
    expect(applyDevicesEvent([], { type: 'devices_changed', devices: [phone] })).toEqual([phone]);
    expect(applyDevicesEvent(null, { type: 'devices_changed', devices: [] })).toEqual([]);
    expect(applyDevicesEvent([phone], other)).toEqual([phone]);
  });

  it('replace the serving status with the one each change brings', () => {
    const on = status(true, 'http://127.0.0.1:7780');
    expect(applyWebEvent(null, { type: 'web_changed', status: on })).toEqual(on);
    expect(applyWebEvent(on, other)).toBe(on);
  });
});

describe('pairedByCode', () => {
  const device = (id: string, name: string, read_only = false): Device => ({ id, name, read_only, paired_at: 1, last_seen_at: 1, last_from: '127.0.0.1', connected: true });
  const old = device('d1', 'Chrome on Android');
  const phone = device('d2', 'Chrome on Android');
  const tablet = device('d3', 'Hall tablet', true);
  const known = new Set(['d1']);
  it.each([
    // The browser that came with the code's access (and name, when it gave one).
    [{ read_only: false, name: null }, known, [old, phone], phone],
    [{ read_only: true, name: 'Hall tablet' }, known, [old, tablet], tablet],
    // Nothing new, or new with another access or name: not this code's.
    [{ read_only: false, name: null }, known, [old], null],
    [{ read_only: false, name: null }, known, [old, tablet], null],
    [{ read_only: true, name: 'Kitchen' }, known, [old, tablet], null],
    // The list was not known when the code was given (or is not now): nothing is told.
    [{ read_only: false, name: null }, null, [old, phone], null],
    [{ read_only: false, name: null }, known, null, null],
  ])('%j knowing %j in %j: %j', (code, ids, devices, expected) => {
    expect(pairedByCode(code, ids, devices)).toEqual(expected);
  });
});
