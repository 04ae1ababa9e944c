/** The fake backend's other machines: what a window showing several machines' agents relies on. */
import { describe, expect, it } from 'vitest';
import { folderMissing } from '../test/profileProblems';
import { profileSpec } from '../test/profiles';
import type { HostLink } from './bindings';
import { FakeBackend } from './fakeBackend';
import { notAnswering } from '../test/hosts';
import { connectedEngine, connectedHost } from '../test/records';

const spec = profileSpec('trainer');

describe('one machine’s engine', () => {
  it('makes an agent there, named by its machine, and lists it with this computer’s', async () => {
    const backend = new FakeBackend();
    const local = await backend.machine(null).createProfile({ ...spec, name: 'here' });
    const remote = await backend.machine('build-box').createProfile(spec);
    expect(local.host).toBeNull();
    expect(remote.host).toBe('build-box');
    expect((await backend.listProfiles()).map((p) => [p.name, p.host])).toEqual([
      ['here', null],
      ['trainer', 'build-box'],
    ]);
  });

  it('records each call with the machine it was sent to, and calls without one as routed by the shell', async () => {
    const backend = new FakeBackend();
    await backend.machine('build-box').listFolder('~');
    await backend.machine(null).agentPresets();
    await backend.listProfiles();
    expect(backend.calls.map((c) => [c.command, c.machine])).toEqual([
      ['list_folder', 'build-box'],
      ['agent_presets', null],
      ['list_profiles', undefined],
    ]);
  });

  it('refuses as the engine does, whichever machine', async () => {
    const backend = new FakeBackend();
    backend.setProfileProblems([folderMissing('/nope')]);
    await expect(backend.machine('build-box').createProfile({ ...spec, cwd: '/nope' })).rejects.toMatchObject({
      code: 'invalid_profile',
      field: 'cwd',
      problems: [folderMissing('/nope')],
    });
    expect(await backend.listProfiles()).toEqual([]);
  });

  it('tells that no login service runs its engine unless a test says one does, and keeps it across a restart', async () => {
    const backend = new FakeBackend();
    expect(await backend.engineLink()).toMatchObject({ state: 'connected', starts_at_login: false });
    backend.setEngineLink(connectedEngine(null, true));
    await backend.restartEngine();
    expect(await backend.engineLink()).toMatchObject({ state: 'connected', connection: 2, starts_at_login: true });
  });
});

describe('the machines the window shows', () => {
  const lost: HostLink = { destination: 'build-box', link: { state: 'lost', reason: 'The connection was lost.', host: 'build-box' } };

  it('lists each with its link, tells each change, and keeps one place per machine', async () => {
    const backend = new FakeBackend();
    const heard: HostLink[] = [];
    const stop = backend.onHostLink((link) => heard.push(link));
    backend.setHostLink({ destination: 'build-box', link: connectedHost('build-box') });
    backend.setHostLink({ destination: 'gpu-box', link: connectedHost('gpu-box') });
    backend.setHostLink(lost);
    expect(await backend.attachedHosts()).toEqual([lost, { destination: 'gpu-box', link: connectedHost('gpu-box') }]);
    expect(heard.map((l) => [l.destination, l.link.state])).toEqual([
      ['build-box', 'connected'],
      ['gpu-box', 'connected'],
      ['build-box', 'lost'],
    ]);
    stop();
    backend.setHostLink({ destination: 'gpu-box', link: lost.link });
    expect(heard).toHaveLength(3);
  });

  it('connects again on request', async () => {
    const backend = new FakeBackend();
    backend.setHostLink(lost);
    await backend.connectHost('build-box');
    expect((await backend.attachedHosts())[0].link.state).toBe('connected');
  });

  it('shows a machine once it is added, and no more once it is taken out of the list', async () => {
    const backend = new FakeBackend();
    const heard: HostLink[] = [];
    backend.onHostLink((link) => heard.push(link));
    await backend.addHost('dev@build-box', null, null, null);
    // The shell found the next one does not answer: it is not added.
    backend.answerNext('add_host', notAnswering('dev@down-box', 'unreachable', 'ssh could not reach dev@down-box: Connection timed out.'));
    await backend.addHost('dev@down-box', null, null, null);
    expect(heard).toEqual([{ destination: 'dev@build-box', link: connectedHost('dev@build-box') }]);
    await backend.removeHost('dev@build-box');
    expect(await backend.attachedHosts()).toEqual([]);
  });
});
