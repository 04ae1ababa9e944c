import { describe, expect, it } from 'vitest';
import type { Attention, GridShows, ProfileId, TerminalGrid } from './bindings';
import type { AttentionMap } from './attention';
import {
  MAX_GRID_TILES,
  canChooseMore,
  chooseAgent,
  gridAgents,
  gridLayout,
  moveFocus,
  removeAgent,
  settleZoom,
  showMode,
  toggleZoom,
  zoomInEffect,
  zoomTo,
  type Direction,
} from './grid';
import { GRID_SHORTCUTS, SHORTCUTS } from './shortcuts';

const grid = (overrides: Partial<TerminalGrid> = {}): TerminalGrid => ({ shows: 'chosen', chosen: [], zoomed: null, ...overrides });
const agents = (...ids: string[]) => ids.map((id) => ({ id }));
const ids = (count: number) => Array.from({ length: count }, (_, at) => `a${at + 1}`);

const needsYou = (since: number): Attention => ({
  state: 'needs_you',
  need: { kind: 'asks' },
  since,
  task_id: null,
  task: null,
  signal_id: null,
  waiting: 1,
});
const failed = (since: number): Attention => ({ state: 'failed', count: 1, task_id: 't', task: 'Port it', reason: null, since });
const stalled = (since: number): Attention => ({ state: 'stalled', stall: { kind: 'quiet', task_id: 't', task: 'Port it' }, since });
const working = (since: number | null = 1): Attention => ({ state: 'working', task_id: 't', task: 'Port it', since });
const idle: Attention = { state: 'idle', since: 1 };
const stopped: Attention = { state: 'stopped', since: null, ended: null, failed: 0 };
const limited: Attention = { state: 'limited', account: 'a', until: null, retry_at: 5, since: 1, task_id: null, task: null };

describe('the layout for a count of tiles', () => {
  // A wide area (1000×500), a tall one (500×1000), and the two windows the app is looked at
  // in: 1280×800 (the main area beside the sidebar: ~990×740) and 820×520 (sidebar folded: ~780×470).
  it.each<[number, number, number, string]>([
    [0, 1000, 500, '1×1'],
    [1, 1000, 500, '1×1'],
    [2, 1000, 500, '1×2'],
    [2, 500, 1000, '2×1'],
    [2, 990, 740, '2×1'],
    [2, 1400, 500, '1×2'],
    [3, 1000, 500, '2×2'],
    [3, 500, 1000, '2×2'],
    [4, 780, 470, '2×2'],
    [5, 1000, 500, '2×3'],
    [5, 500, 1000, '3×2'],
    [6, 780, 470, '2×3'],
    [6, 990, 740, '3×2'],
    [7, 1000, 500, '3×3'],
    [8, 500, 1000, '3×3'],
    [9, 780, 470, '3×3'],
    [12, 1000, 500, '3×3'],
  ])('%i tiles in %i×%i px: %s', (count, width, height, expected) => {
    const { rows, cols } = gridLayout(count, width, height);
    expect(`${rows}×${cols}`).toBe(expected);
  });

  it('takes the wider layout before the area is measured', () => {
    expect(gridLayout(2, 0, 0)).toEqual({ rows: 1, cols: 2 });
    expect(gridLayout(6, 0, 300)).toEqual({ rows: 2, cols: 3 });
  });

  it('always has room for every tile, at most 9', () => {
    for (let count = 1; count <= 12; count++) {
      for (const [width, height] of [[1000, 500], [500, 1000], [800, 800]]) {
        const { rows, cols } = gridLayout(count, width, height);
        expect(rows * cols).toBeGreaterThanOrEqual(Math.min(count, MAX_GRID_TILES));
        // No row left empty.
        expect((rows - 1) * cols).toBeLessThan(Math.min(count, MAX_GRID_TILES));
      }
    }
  });
});

describe('which agents each mode shows', () => {
  const profiles = agents('a', 'b', 'c', 'd', 'e');
  const attention: AttentionMap = { a: working(), b: needsYou(30), c: failed(10), d: stalled(20), e: idle };

  it.each<[GridShows, ProfileId[], AttentionMap, ProfileId[]]>([
    // The choice, in its order; agents the window does not know are left out.
    ['chosen', ['c', 'a', 'gone', 'e'], attention, ['c', 'a', 'e']],
    ['chosen', [], attention, []],
    // An agent listed twice (never from the engine, which refuses it) shows once.
    ['chosen', ['b', 'b', 'a'], attention, ['b', 'a']],
    // Needs you, failed, stalled: the longest waiting first.
    ['needs_you', ['a'], attention, ['c', 'd', 'b']],
    // Ties keep the window's order.
    ['needs_you', [], { a: needsYou(5), b: failed(5), c: idle }, ['a', 'b']],
    // At its usage limit the app waits by itself: not the user's.
    ['needs_you', [], { a: limited, b: stopped, c: idle, d: working() }, []],
    // Working: in the window's order, whatever began first.
    ['working', [], { a: working(50), b: idle, c: working(10), d: needsYou(1) }, ['a', 'c']],
    ['working', ['b'], {}, []],
  ])('%s (chosen %j)', (shows, chosen, map, expected) => {
    expect(gridAgents({ grid: grid({ shows, chosen }), profiles, attention: map }).shown).toEqual(expected);
  });

  it('shows 9 at most, and says how many more the mode has', () => {
    const many = agents(...ids(12));
    const map = Object.fromEntries(many.map((p, at) => [p.id, needsYou(at)]));
    const shown = gridAgents({ grid: grid({ shows: 'needs_you' }), profiles: many, attention: map });
    expect(shown.shown).toEqual(ids(9));
    expect(shown.leftOut).toBe(3);
    // The engine keeps 9 chosen at most; more (never sent) would be cut the same way.
    const chosen = gridAgents({ grid: grid({ chosen: ids(10) }), profiles: many, attention: {} });
    expect(chosen.shown).toEqual(ids(9));
    expect(chosen.leftOut).toBe(1);
  });

  it('keeps the focused tile in its place while it has the keyboard, though its agent left the mode', () => {
    // b was answered in its tile: it works now, no longer needs the user.
    const now: AttentionMap = { a: needsYou(1), b: working(), c: needsYou(3) };
    const before = ['a', 'b', 'c'];
    const input = { grid: grid({ shows: 'needs_you' }), profiles: agents('a', 'b', 'c'), attention: now, before };
    expect(gridAgents({ ...input, held: 'b' }).shown).toEqual(['a', 'b', 'c']);
    // The keyboard went elsewhere: it leaves.
    expect(gridAgents({ ...input, held: 'c' }).shown).toEqual(['a', 'c']);
    // Not held unless it was on screen in this mode, nor once the agent is gone.
    expect(gridAgents({ ...input, held: 'b', before: [] }).shown).toEqual(['a', 'c']);
    expect(gridAgents({ ...input, profiles: agents('a', 'c'), held: 'b' }).shown).toEqual(['a', 'c']);
  });

  it('never holds back an agent the user took out of their choice', () => {
    const input = { grid: grid({ chosen: ['a', 'c'] }), profiles: agents('a', 'b', 'c'), attention: {}, before: ['a', 'b', 'c'] };
    expect(gridAgents({ ...input, held: 'b' }).shown).toEqual(['a', 'c']);
  });

  it('holds the focused agent within the 9, the last one giving way', () => {
    const many = agents(...ids(10));
    const map: AttentionMap = Object.fromEntries(many.map((p, at) => [p.id, needsYou(at)]));
    const before = ids(9);
    const answered = { ...map, a2: working() };
    const shown = gridAgents({ grid: grid({ shows: 'needs_you' }), profiles: many, attention: answered, held: 'a2', before });
    expect(shown.shown).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7', 'a8', 'a9']);
    expect(shown.leftOut).toBe(1);
  });
});

describe('moving the keyboard between tiles', () => {
  // Tiles in reading order; in 2 columns, 3 tiles are:  0 1
  //                                                      2
  it.each<[number, number, number, Direction, number]>([
    // Left and right: reading order, round from the last to the first.
    [4, 2, 0, 'right', 1],
    [4, 2, 1, 'right', 2],
    [4, 2, 3, 'right', 0],
    [4, 2, 0, 'left', 3],
    [4, 2, 2, 'left', 1],
    // Up and down: the same column, round to the other end.
    [4, 2, 0, 'down', 2],
    [4, 2, 2, 'down', 0],
    [4, 2, 1, 'up', 3],
    [4, 2, 3, 'up', 1],
    // A short last row: down from the column it lacks goes to its last tile; up from it, too.
    [3, 2, 1, 'down', 2],
    [3, 2, 0, 'up', 2],
    [3, 2, 1, 'up', 2],
    [3, 2, 2, 'down', 0],
    // 3×3 with 7: the last row has one tile.
    [7, 3, 4, 'down', 6],
    [7, 3, 6, 'down', 0],
    [7, 3, 2, 'up', 6],
    [7, 3, 5, 'down', 6],
    // One row (1×2), one column (2×1).
    [2, 2, 0, 'down', 0],
    [2, 2, 1, 'right', 0],
    [2, 1, 0, 'down', 1],
    [2, 1, 1, 'down', 0],
    [2, 1, 0, 'right', 1],
    // One tile stays; none focused goes to the first; no tile, nowhere.
    [1, 1, 0, 'left', 0],
    [4, 2, -1, 'down', 0],
    [4, 2, 9, 'left', 0],
    [0, 1, -1, 'right', -1],
  ])('%i tiles in %i columns: from %i %s goes to %i', (count, cols, from, direction, expected) => {
    expect(moveFocus(from, direction, count, cols)).toBe(expected);
  });

  it('reaches every tile from any with right alone, and comes back', () => {
    for (let count = 1; count <= 9; count++) {
      const seen = new Set<number>();
      let at = 0;
      for (let step = 0; step < count; step++) {
        seen.add(at);
        at = moveFocus(at, 'right', count, 3);
      }
      expect(seen.size).toBe(count);
      expect(at).toBe(0);
    }
  });
});

describe('zoom', () => {
  it('is in effect only while the grid shows its agent', () => {
    expect(zoomInEffect(grid({ zoomed: 'b' }), ['a', 'b'])).toBe('b');
    expect(zoomInEffect(grid({ zoomed: 'b' }), ['a'])).toBeNull();
    expect(zoomInEffect(grid(), ['a'])).toBeNull();
  });

  it('ends when its agent leaves the grid, and stays otherwise', () => {
    const zoomed = grid({ chosen: ['a', 'b'], zoomed: 'b' });
    expect(settleZoom(zoomed, ['a']).zoomed).toBeNull();
    expect(settleZoom(zoomed, ['a', 'b'])).toBe(zoomed);
  });

  it('toggles on a tile, moves to another, and follows the keyboard', () => {
    expect(toggleZoom(grid(), 'a').zoomed).toBe('a');
    expect(toggleZoom(grid({ zoomed: 'a' }), 'a').zoomed).toBeNull();
    expect(toggleZoom(grid({ zoomed: 'a' }), 'b').zoomed).toBe('b');
    expect(zoomTo(grid({ zoomed: 'a' }), 'b').zoomed).toBe('b');
  });

  it('ends with its agent removed from the choice', () => {
    expect(removeAgent(grid({ chosen: ['a', 'b'], zoomed: 'b' }), 'b')).toEqual(grid({ chosen: ['a'] }));
    expect(removeAgent(grid({ chosen: ['a', 'b'], zoomed: 'a' }), 'b')).toEqual(grid({ chosen: ['a'], zoomed: 'a' }));
  });
});

describe('the choice', () => {
  const known = ids(12);

  it('adds an agent in the last place, once, and shows the choice', () => {
    expect(chooseAgent(grid({ chosen: ['a2', 'a1'] }), 'a3', known).chosen).toEqual(['a2', 'a1', 'a3']);
    expect(chooseAgent(grid({ chosen: ['a2', 'a1'] }), 'a2', known).chosen).toEqual(['a2', 'a1']);
    expect(chooseAgent(grid({ shows: 'working' }), 'a1', known)).toEqual(grid({ chosen: ['a1'] }));
  });

  it('keeps the engine’s rules: 9 at most, an agent once, only agents the window knows', () => {
    const full = grid({ chosen: ids(9) });
    expect(canChooseMore(full, known)).toBe(false);
    expect(chooseAgent(full, 'a10', known).chosen).toEqual(ids(9));
    // An agent that is gone gives up its place.
    const withGone = grid({ chosen: [...ids(8), 'gone'] });
    expect(canChooseMore(withGone, known)).toBe(true);
    expect(chooseAgent(withGone, 'a10', known).chosen).toEqual([...ids(8), 'a10']);
    expect(chooseAgent(grid(), 'unknown', known).chosen).toEqual([]);
    expect(chooseAgent(grid({ chosen: ['a1', 'a1'] }), 'a2', known).chosen).toEqual(['a1', 'a2']);
  });

  it('removes an agent, the others keeping their order', () => {
    expect(removeAgent(grid({ chosen: ['a1', 'a2', 'a3'] }), 'a2').chosen).toEqual(['a1', 'a3']);
  });

  it('is kept while the grid shows another mode', () => {
    const chosen = grid({ chosen: ['a1', 'a2'], zoomed: 'a1' });
    expect(showMode(chosen, 'needs_you')).toEqual({ ...chosen, shows: 'needs_you' });
    expect(showMode(showMode(chosen, 'working'), 'chosen')).toEqual(chosen);
  });
});

describe('the grid’s keys', () => {
  it('take none of the window’s shortcuts, nor plain Escape', () => {
    const window = Object.values(SHORTCUTS).map((s) => s.keys);
    const grid = Object.values(GRID_SHORTCUTS).map((s) => s.keys);
    expect(new Set([...window, ...grid]).size).toBe(window.length + grid.length);
    for (const keys of grid) {
      expect(keys).toMatch(/^\$mod\+Shift\+/);
      expect(keys).not.toMatch(/Escape/);
    }
  });
});
