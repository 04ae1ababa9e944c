import { describe, expect, it } from 'vitest';
import type { EngineEvent, EngineLink, HostLink, Profile, SessionInfo, Settings, WebStatus } from './bindings';
import { chosenMachine, disconnectedMachine, hostEventUse, hostOfSession, hostTone, machineChoices, machineLabel, machineName, parsePort, THIS_MACHINE, upsertHostLink, withHostStorage } from './hosts';

const connected: EngineLink = { state: 'connected', engine_version: '0.1.0', outdated: false, agents_running: 1, host: null, connection: 1, restarted: false, starts_at_login: false };
const lost: EngineLink = { state: 'lost', reason: 'The connection was lost.', host: null };
const link = (destination: string, state: EngineLink): HostLink => ({ destination, link: state });

describe('machineLabel', () => {
  const links = [link('build-box', connected), link('gpu-box', lost), link('new-box', { state: 'connecting' })];
  it.each([
    // This computer's agents say nothing more.
    [null, null],
    [undefined, null],
    ['', null],
    ['build-box', 'on build-box'],
    // Not reached now, whatever the reason: disconnected.
    ['gpu-box', 'gpu-box · disconnected'],
    ['new-box', 'new-box · disconnected'],
    // No link known (not listed yet): only named.
    ['old-box', 'on old-box'],
  ])('%s: %s', (host, text) => {
    expect(machineLabel(host, links)?.text ?? null).toBe(text);
    // The machine is named as disconnected exactly when its label says so.
    expect(disconnectedMachine(host, links)).toBe(text?.endsWith('disconnected') ? host : null);
  });

  it('says in its tooltip that a disconnected machine’s agents go on working there', () => {
    expect(machineLabel('gpu-box', links)).toEqual({
      text: 'gpu-box · disconnected',
      machine: 'gpu-box',
      note: 'disconnected',
      title: 'Disconnected from gpu-box; its agents go on working there.',
      connected: false,
    });
    expect(machineLabel('build-box', links)).toEqual({ text: 'on build-box', machine: 'on build-box', note: null, title: 'Runs on build-box.', connected: true });
  });
});

describe('machineChoices', () => {
  const links = [link('build-box', connected), link('gpu-box', lost), link('ci-box', connected)];
  it('offers this computer, then each machine reached now, in the order attached', () => {
    expect(machineChoices(links, null, 'This computer')).toEqual([
      { value: THIS_MACHINE, label: 'This computer', disabled: false },
      { value: 'build-box', label: 'build-box', disabled: false },
      { value: 'ci-box', label: 'ci-box', disabled: false },
    ]);
  });

  it('keeps a machine chosen before it dropped, marked and not offered', () => {
    expect(machineChoices(links, 'gpu-box', 'This computer').map((c) => [c.label, c.disabled])).toEqual([
      ['This computer', false],
      ['build-box', false],
      ['gpu-box · disconnected', true],
      ['ci-box', false],
    ]);
  });

  it('calls the window’s own machine by its name when that is another one', () => {
    expect(machineChoices([], null, 'dev@box')).toEqual([{ value: THIS_MACHINE, label: 'dev@box', disabled: false }]);
  });

  it.each([
    [THIS_MACHINE, null],
    ['build-box', 'build-box'],
  ])('the value %o names %o', (value, host) => {
    expect(chosenMachine(value)).toBe(host);
  });
});

describe('machineName', () => {
  it.each<[string | null | undefined, string]>([
    [null, 'this computer'],
    [undefined, 'this computer'],
    ['', 'this computer'],
    ['build-box', 'build-box'],
    ['dev@box', 'dev@box'],
  ])('names the machine %j %j', (host, name) => {
    expect(machineName(host)).toBe(name);
  });
});

describe('upsertHostLink', () => {
  it('replaces a machine’s link in its place, and adds a machine just attached last', () => {
    const links = [link('a', connected), link('b', connected)];
    expect(upsertHostLink(links, link('a', lost))).toEqual([link('a', lost), link('b', connected)]);
    expect(upsertHostLink(links, link('c', connected)).map((l) => l.destination)).toEqual(['a', 'b', 'c']);
  });
});

describe('hostOfSession', () => {
  const profile = (id: string, host?: string | null) => ({ id, name: id, ...(host !== undefined && { host }) }) as Profile;
  const session = (id: string, profile_id: string) => ({ id, profile_id, state: 'running', pid: 1 }) as SessionInfo;
  const model = {
    profiles: [profile('remote', 'build-box'), profile('local', null), profile('unnamed')],
    sessions: [session('s1', 'remote'), session('s2', 'local'), session('s3', 'unnamed'), session('s4', 'gone')],
  };
  it.each([
    ['s1', 'build-box'],
    ['s2', null],
    // An engine that does not name the machine is this computer's.
    ['s3', null],
    // An agent or session the window does not know: asked of this computer's engine.
    ['s4', null],
    ['s9', null],
  ])('%s runs on %o', (id, host) => {
    expect(hostOfSession(model, id)).toBe(host);
  });
});

describe('hostTone and parsePort', () => {
  it.each([
    ['connected', 'ok'],
    ['sign_in', 'ask'],
    ['unknown_host_key', 'ask'],
    ['unreachable', 'bad'],
  ] as const)('%s looks %s', (state, tone) => {
    expect(hostTone(state)).toBe(tone);
  });

  it.each([
    ['', null],
    [' 2222 ', 2222],
    ['0', undefined],
    ['65536', undefined],
    ['22a', undefined],
  ])('%o is the port %o', (text, port) => {
    expect(parsePort(text)).toBe(port);
  });
});

describe('hostEventUse', () => {
  const failing: EngineEvent = { type: 'storage_changed', problem: { kind: 'failing', detail: 'disk I/O error' } };
  const fixed: EngineEvent = { type: 'storage_changed', problem: null };
  const settings = { type: 'settings_changed', settings: {} as Settings } as EngineEvent;
  const deleted: EngineEvent = { type: 'profile_deleted', profile_id: 'p1' };
  const web = { type: 'web_changed', status: {} as WebStatus } as EngineEvent;
  const devices: EngineEvent = { type: 'devices_changed', devices: [] };
  it.each([
    // Another machine's storage is that machine's, never this computer's banner.
    [failing, { use: 'storage', host: 'gpu', problem: { kind: 'failing', detail: 'disk I/O error' } }],
    [fixed, { use: 'storage', host: 'gpu', problem: null }],
    // The user's settings are this computer's: another machine's do not replace them.
    [settings, { use: 'ignore' }],
    // The browsers another machine serves are not this computer's Devices pane's.
    [web, { use: 'ignore' }],
    [devices, { use: 'ignore' }],
    [deleted, { use: 'apply', event: deleted }],
  ])('%j from gpu is %j', (event, expected) => {
    expect(hostEventUse(event, 'gpu')).toEqual(expected);
  });
});

describe('withHostStorage', () => {
  it('keeps each machine\'s problem until that machine says it is gone', () => {
    const one = withHostStorage({}, 'gpu', { kind: 'full' });
    expect(one).toEqual({ gpu: { kind: 'full' } });
    const two = withHostStorage(one, 'build-box', { kind: 'read_only' });
    expect(two).toEqual({ gpu: { kind: 'full' }, 'build-box': { kind: 'read_only' } });
    expect(withHostStorage(two, 'gpu', null)).toEqual({ 'build-box': { kind: 'read_only' } });
    expect(one).toEqual({ gpu: { kind: 'full' } });
  });
});
