import { describe, expect, it } from 'vitest';
import { hostBanner, hostReloadsOn, linkBanner, type PageLink, loadedThrough, quitQuestion, reloadsOn, restartQuestion, runningHere } from './engineLink';
import type { EngineLink, Profile, SessionInfo } from './bindings';

const connected: EngineLink = { state: 'connected', engine_version: '0.1.0', outdated: false, agents_running: 2, host: null, connection: 1, restarted: false, starts_at_login: false };
const lost: EngineLink = { state: 'lost', reason: 'The engine stopped.', host: null };
const remote = (link: EngineLink): EngineLink => ({ ...link, host: 'dev@build-box' }) as EngineLink;

describe('linkBanner', () => {
  it.each([
    [{ state: 'connecting' } as EngineLink, null],
    [connected, null],
    [{ ...connected, outdated: true } as EngineLink, 'restart'],
    [lost, 'start'],
    [{ state: 'refused', reason: 'this program speaks version 2', host: null } as EngineLink, 'restart'],
    // Another machine's engine is neither started nor restarted from here: connect again, or nothing.
    [remote(lost), 'connect'],
    [remote({ ...connected, outdated: true } as EngineLink), null],
    [remote({ state: 'refused', reason: 'this program speaks version 2', host: null } as EngineLink), null],
  ])('%o offers %s', (link, action) => {
    expect(linkBanner(link)?.action ?? null).toBe(action);
  });

  it.each([
    [{ state: 'connecting' } as PageLink, null, null],
    [connected, null, null],
    [lost, 'Switchboard cannot be reached.', 'retry'],
    [{ state: 'refused', reason: 'Pair it again.', host: null, unpaired: true } as PageLink, 'This browser is no longer paired with Switchboard.', 'pair'],
    [{ state: 'refused', reason: 'another protocol', host: null } as PageLink, 'Switchboard’s engine cannot talk with this page.', 'reload'],
  ])('in a browser, %o says %s and offers %s (never to start or restart the engine)', (link, title, action) => {
    const banner = linkBanner(link, 'browser');
    expect(banner?.title ?? null).toBe(title);
    expect(banner?.action ?? null).toBe(action);
  });

  it('says the window started a dead engine again, as a note that can be dismissed', () => {
    const banner = linkBanner({ ...connected, connection: 2, restarted: true, starts_at_login: false } as EngineLink)!;
    expect(banner.title).toBe('The engine stopped unexpectedly, and the window started it again.');
    expect(banner.action).toBe('dismiss');
    expect(banner.severe).toBe(false);
  });

  it('says the reason and that it reconnects by itself', () => {
    const banner = linkBanner({ state: 'lost', reason: 'Switchboard’s engine is not running.', host: null })!;
    expect(banner.title).toBe('The engine stopped.');
    expect(banner.advice).toContain('not running');
    expect(banner.advice).toContain('reconnects by itself');
    expect(banner.severe).toBe(true);
  });

  it('names the machine whose connection dropped and says its agents go on there', () => {
    const banner = linkBanner(remote({ ...lost, reason: 'The connection to dev@build-box was lost.' }))!;
    expect(banner.title).toBe('Disconnected from dev@build-box.');
    expect(banner.advice).toContain('go on working there');
    expect(banner.advice).toContain('reconnects by itself');
  });

  it('names the other build and what a restart does to running agents', () => {
    const banner = linkBanner({ ...connected, engine_version: '0.0.9', outdated: true })!;
    expect(banner.title).toContain('0.0.9');
    expect(banner.advice).toContain('stopped');
  });
});

describe('reloadsOn', () => {
  const second: EngineLink = { ...connected, connection: 2 } as EngineLink;
  it.each([
    // Not known yet what the window loaded from: the first connection heard of is it.
    [null, connected, false],
    [null, second, false],
    [1, connected, false],
    // Any other connection reloads, whichever way it came about (from "lost", "connecting" or "refused").
    [1, second, true],
    [2, connected, true],
    [1, { ...second, restarted: true, starts_at_login: false } as EngineLink, true],
    // Nothing to load from yet.
    [1, lost, false],
    [1, { state: 'connecting' } as EngineLink, false],
  ])('loaded through %o, then %o: %s', (loaded, now, reloads) => {
    expect(reloadsOn(loaded, now)).toBe(reloads);
  });

  it('a window that started connecting loads from its first connection and reloads on the next', () => {
    let loaded: number | null = null;
    const reloads: boolean[] = [];
    for (const now of [{ state: 'connecting' } as EngineLink, connected, lost, { state: 'connecting' } as EngineLink, second]) {
      reloads.push(reloadsOn(loaded, now));
      loaded = loadedThrough(loaded, now);
    }
    expect(reloads).toEqual([false, false, false, false, true]);
  });
});

describe('hostReloadsOn', () => {
  const connecting: EngineLink = { state: 'connecting' };
  const refused: EngineLink = { state: 'refused', reason: 'this program speaks version 2', host: 'dev@build-box' };
  it.each([
    // A machine the window did not know of (just added) or loaded without (still connecting): its agents come in.
    ['unknown, then connected', null, remote(connected), true],
    ['connecting, then connected', connecting, remote(connected), true],
    // Back after a drop: what its agents did meanwhile was missed.
    ['lost, then connected', remote(lost), remote(connected), true],
    ['refused, then connected', refused, remote(connected), true],
    // Reached all along: nothing to load again (another build is a note, not a reload).
    ['connected, then connected', remote(connected), remote(connected), false],
    ['connected, then another build', remote(connected), remote({ ...connected, outdated: true } as EngineLink), false],
    // Not reached: nothing to load yet.
    ['unknown, then connecting', null, connecting, false],
    ['connected, then lost', remote(connected), remote(lost), false],
    ['lost, then refused', remote(lost), refused, false],
  ])('%s: %s', (_case, before, now, reloads) => {
    expect(hostReloadsOn(before, now)).toBe(reloads);
  });
});

describe('hostBanner', () => {
  it.each([
    [{ state: 'connecting' } as EngineLink, null],
    [connected, null],
    [{ ...connected, outdated: true } as EngineLink, null],
    [lost, 'Disconnected from build-box.'],
    [{ state: 'refused', reason: 'this program speaks version 2', host: null } as EngineLink, 'The engine on build-box cannot talk with this window.'],
  ])('%o: %s', (link, title) => {
    expect(hostBanner({ destination: 'build-box', link })?.title ?? null).toBe(title);
  });

  it('names the machine as the user added it, says its agents go on there, and offers to connect now', () => {
    const banner = hostBanner({ destination: 'build-box', link: { state: 'lost', reason: 'The connection to build-box was lost.', host: 'dev@10.0.0.7' } })!;
    expect(banner.title).toBe('Disconnected from build-box.');
    expect(banner.advice).toContain('The connection to build-box was lost.');
    expect(banner.advice).toContain('go on working there');
    expect(banner.action).toBe('connect');
    expect(banner.severe).toBe(true);
    // Refused too: once the same version is installed there, connecting again takes it.
    expect(hostBanner({ destination: 'build-box', link: { state: 'refused', reason: 'x', host: null } })!.action).toBe('connect');
  });
});

describe('restartQuestion', () => {
  it('asks nothing when no agent runs, and names the ones that do', () => {
    expect(restartQuestion([])).toBeNull();
    expect(restartQuestion(['builder'])).toBe(
      'Restarting the engine stops 1 running agent: builder. Their tasks go back to their queues or are marked interrupted.',
    );
    expect(restartQuestion(['a', 'b', 'c', 'd', 'e'])).toContain('a, b, c and 2 more');
  });
});

describe('quitQuestion', () => {
  it('asks nothing when no agent runs, and names the ones that do', () => {
    expect(quitQuestion([])).toBeNull();
    expect(quitQuestion(['builder'])).toBe(
      'Quitting this way stops the engine and 1 running agent: builder. Their tasks go back to their queues or are marked interrupted.',
    );
    expect(quitQuestion(['a', 'b', 'c', 'd'])).toContain('4 running agents: a, b, c and 1 more.');
  });
});

describe('runningHere', () => {
  it('names this machine’s agents that run, not another machine’s, nor ones that ended', () => {
    const profile = (id: string, name: string, host: string | null) => ({ id, name, host }) as unknown as Profile;
    const session = (profile_id: string, state: string) => ({ profile_id, state }) as unknown as SessionInfo;
    const profiles = [profile('a', 'builder', null), profile('b', 'remote', 'dev@build-box'), profile('c', 'done', null), profile('d', 'idle', null)];
    const sessions = [session('a', 'running'), session('b', 'running'), session('c', 'exited')];
    expect(runningHere(profiles, sessions)).toEqual(['builder']);
  });
});
