import { describe, expect, it } from 'vitest';
import { linkBanner, reloadsOn, restartQuestion } from './engineLink';
import type { EngineLink } from './bindings';

const connected: EngineLink = { state: 'connected', engine_version: '0.1.0', outdated: false, agents_running: 2 };
const lost: EngineLink = { state: 'lost', reason: 'The engine stopped.' };

describe('linkBanner', () => {
  it.each([
    [{ state: 'connecting' } as EngineLink, null],
    [connected, null],
    [{ ...connected, outdated: true } as EngineLink, 'restart'],
    [lost, 'start'],
    [{ state: 'refused', reason: 'this program speaks version 2' } as EngineLink, 'restart'],
  ])('%o offers %s', (link, action) => {
    expect(linkBanner(link)?.action ?? null).toBe(action);
  });

  it('says the reason and that it reconnects by itself', () => {
    const banner = linkBanner({ state: 'lost', reason: 'Switchboard’s engine is not running.' })!;
    expect(banner.title).toBe('The engine stopped.');
    expect(banner.advice).toContain('not running');
    expect(banner.advice).toContain('reconnects by itself');
    expect(banner.severe).toBe(true);
  });

  it('names the other build and what a restart does to running agents', () => {
    const banner = linkBanner({ ...connected, engine_version: '0.0.9', outdated: true })!;
    expect(banner.title).toContain('0.0.9');
    expect(banner.advice).toContain('stopped');
  });
});

describe('reloadsOn', () => {
  it.each([
    [null, connected, false],
    [{ state: 'connecting' } as EngineLink, connected, false],
    [lost, connected, true],
    [{ state: 'refused', reason: '' } as EngineLink, connected, true],
    [connected, lost, false],
  ])('%o then %o: %s', (before, now, reloads) => {
    expect(reloadsOn(before, now)).toBe(reloads);
  });
});

describe('restartQuestion', () => {
  it('asks nothing when no agent runs, and names the ones that do', () => {
    expect(restartQuestion([])).toBeNull();
    expect(restartQuestion(['builder'])).toBe('Restarting the engine stops 1 running agent (builder). Restart it?');
    expect(restartQuestion(['a', 'b', 'c', 'd', 'e'])).toContain('a, b, c and 2 more');
  });
});
