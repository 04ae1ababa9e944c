import { describe, expect, it } from 'vitest';
import type { SearchHit } from './bindings';
import { agentsMatching, hitLabel, markWords, queryWords } from './search';

describe('search words', () => {
  it('mark every word found, whatever its case, and leave markup as text', () => {
    expect(markWords('Review the AUTH module <b>auth</b>', queryWords('auth review'))).toEqual([
      { text: 'Review', found: true },
      { text: ' the ', found: false },
      { text: 'AUTH', found: true },
      { text: ' module <b>', found: false },
      { text: 'auth', found: true },
      { text: '</b>', found: false },
    ]);
    expect(markWords('nothing here', [])).toEqual([{ text: 'nothing here', found: false }]);
  });

  it('say what each hit is', () => {
    const hit = (found: SearchHit['found']): SearchHit => ({ profile_id: 'p', at: 1, snippet: '', found });
    expect(hitLabel(hit({ in: 'task', task_id: 't', title: 'x', state: 'timed_out' }))).toBe('Task · timed out');
    expect(hitLabel(hit({ in: 'summary', task_id: 't', title: 'x', state: 'completed' }))).toBe('Summary · completed');
    expect(hitLabel(hit({ in: 'signal', signal_id: 's', kind: 'clarification', pending: true }))).toMatch(/waiting for you$/);
  });
});

describe('agents matching the sidebar search', () => {
  const agents = [
    { name: 'Demo agent', cwd: '/home/ana/demo' },
    { name: 'Reviewer', cwd: '/home/ana/shop' },
    { name: 'shop builder', cwd: '/srv/shop' },
  ];
  it.each([
    ['', ['Demo agent', 'Reviewer', 'shop builder']],
    ['  ', ['Demo agent', 'Reviewer', 'shop builder']],
    ['rev', ['Reviewer']],
    ['DEMO', ['Demo agent']],
    ['shop', ['Reviewer', 'shop builder']],
    ['shop build', ['shop builder']],
    ['nothing', []],
  ])('%j lists %j', (query, names) => {
    expect(agentsMatching(agents, query).map((a) => a.name)).toEqual(names);
  });
});
