/**
 * The terminal grid's decisions, pure: which agents it shows (`gridAgents`), in how many rows
 * and columns (`gridLayout`), where the keyboard goes on a move (`moveFocus`), and the edits
 * of the grid the engine keeps in the settings (`chooseAgent`, `removeAgent`, `showMode`,
 * `toggleZoom`, `settleZoom`). The edits keep the engine's rules (9 agents at most, an agent
 * once: `validate_settings`) so a save is never refused for them, and the zoom's: an agent that
 * leaves the grid is no longer zoomed.
 *
 * Tiles are numbered in reading order: left to right, then top to bottom. Only the last row
 * may be short.
 */
import type { GridShows, ProfileId, TerminalGrid } from './bindings';
import { asksTheUser, type ShownAttentionMap } from './attention';

/** The most terminals the grid shows at once (the engine's `MAX_GRID_TERMINALS`). */
export const MAX_GRID_TILES = 9;

/**
 * The shape of tile the layout aims for, width over height in pixels: an 80×24 terminal in
 * the app's 13 px monospace font (cells about 7.8×17 px). Of the layouts allowed for a count,
 * the one whose tiles come closest to it wins, so a wide window puts two agents side by side
 * and a tall one stacks them.
 */
export const TILE_ASPECT = 1.5;

export interface GridLayout {
  rows: number;
  cols: number;
}

/** The layouts allowed for each count of tiles, the wider first (it wins a tie). */
function candidates(count: number): GridLayout[] {
  if (count <= 1) return [{ rows: 1, cols: 1 }];
  if (count === 2) return [{ rows: 1, cols: 2 }, { rows: 2, cols: 1 }];
  if (count <= 4) return [{ rows: 2, cols: 2 }];
  if (count <= 6) return [{ rows: 2, cols: 3 }, { rows: 3, cols: 2 }];
  return [{ rows: 3, cols: 3 }];
}

/**
 * Rows and columns for `count` tiles (capped at 9) in an area of `width`×`height` pixels:
 * 1 → 1×1; 2 → 1×2 or 2×1; 3–4 → 2×2; 5–6 → 2×3 or 3×2; 7–9 → 3×3, choosing by the tiles'
 * shape (`TILE_ASPECT`). An area not measured yet (0 or less) takes the wider layout.
 */
export function gridLayout(count: number, width: number, height: number): GridLayout {
  const options = candidates(Math.min(count, MAX_GRID_TILES));
  if (!(width > 0 && height > 0)) return options[0];
  const distance = (layout: GridLayout) => Math.abs(Math.log(width / layout.cols / (height / layout.rows) / TILE_ASPECT));
  return options.reduce((best, option) => (distance(option) < distance(best) ? option : best));
}

/** What the grid shows: its agents in their places, and how many of the mode's set did not fit. */
export interface GridAgents {
  shown: ProfileId[];
  leftOut: number;
}

export interface GridInput {
  grid: TerminalGrid;
  /** Every agent the window knows, in the window's order (the sidebar's). */
  profiles: readonly { id: ProfileId }[];
  attention: ShownAttentionMap;
  /**
   * The agent whose tile has the keyboard. In the modes the engine's news change by
   * themselves (`needs_you`, `working`) it keeps its place while it does, though it left the
   * mode's set (answered, it no longer needs the user), so a tile never goes from under the
   * user's typing. The user's own edits of the choice are never held back.
   */
  held?: ProfileId | null;
  /** What the grid showed before in the same mode, for the place a held agent keeps. */
  before?: readonly ProfileId[];
}

/**
 * The agents the grid shows, at most 9, in their places:
 * - `chosen`: the user's choice in its order, less agents the window does not know (deleted,
 *   or of a machine it no longer shows);
 * - `needs_you`: every agent whose attention asks the user (needs you, failed, stalled), the
 *   one that has waited longest first (the engine's `since`), ties in the window's order;
 * - `working`: every agent at work, in the window's order (the time it began its task changes
 *   with each task; its place should not).
 */
export function gridAgents(input: GridInput): GridAgents {
  const known = new Set(input.profiles.map((p) => p.id));
  const set = modeSet(input);
  const held = input.held ?? null;
  const before = input.before ?? [];
  if (input.grid.shows !== 'chosen' && held !== null && known.has(held) && !set.includes(held) && before.includes(held)) {
    // Back in the place it had, as near as the others leave it.
    const at = Math.min(before.indexOf(held), set.length, MAX_GRID_TILES - 1);
    const withHeld = [...set];
    withHeld.splice(at, 0, held);
    return { shown: withHeld.slice(0, MAX_GRID_TILES), leftOut: Math.max(0, withHeld.length - MAX_GRID_TILES) };
  }
  return { shown: set.slice(0, MAX_GRID_TILES), leftOut: Math.max(0, set.length - MAX_GRID_TILES) };
}

function modeSet({ grid, profiles, attention }: GridInput): ProfileId[] {
  switch (grid.shows) {
    case 'chosen': {
      const known = new Set(profiles.map((p) => p.id));
      return unique(grid.chosen).filter((id) => known.has(id));
    }
    case 'needs_you': {
      const asking = profiles.filter((p) => asksTheUser(attention[p.id]));
      // A stable sort: agents that began waiting at the same moment keep the window's order.
      return asking.sort((a, b) => (attention[a.id]?.since ?? 0) - (attention[b.id]?.since ?? 0)).map((p) => p.id);
    }
    case 'working':
      return profiles.filter((p) => attention[p.id]?.state === 'working').map((p) => p.id);
  }
}

function unique(ids: readonly ProfileId[]): ProfileId[] {
  return ids.filter((id, at) => ids.indexOf(id) === at);
}

export type Direction = 'left' | 'right' | 'up' | 'down';

/**
 * The tile the keyboard goes to from tile `from` (-1: none yet, which goes to the first), of
 * `count` tiles laid out in `cols` columns:
 * - left and right go to the previous and next tile in reading order, from the end of a row
 *   to the start of the next, and from the last tile round to the first (and back): every tile
 *   is reached with these two alone;
 * - up and down go to the row above or below in the same column; past the top or bottom row
 *   they wrap round to the other end of the column; in a short last row, to its last tile.
 * A single tile (or none) stays where it is.
 */
export function moveFocus(from: number, direction: Direction, count: number, cols: number): number {
  if (count <= 0) return -1;
  if (from < 0 || from >= count) return 0;
  const width = Math.max(1, Math.min(cols, count));
  const rows = Math.ceil(count / width);
  const row = Math.floor(from / width);
  const col = from % width;
  switch (direction) {
    case 'right':
      return (from + 1) % count;
    case 'left':
      return (from - 1 + count) % count;
    case 'down':
      return Math.min(((row + 1) % rows) * width + col, count - 1);
    case 'up':
      return Math.min(((row - 1 + rows) % rows) * width + col, count - 1);
  }
}

/** The agent zoomed to the grid's full size, as long as the grid shows it; else none. */
export function zoomInEffect(grid: TerminalGrid, shown: readonly ProfileId[]): ProfileId | null {
  return grid.zoomed !== null && shown.includes(grid.zoomed) ? grid.zoomed : null;
}

/** The grid with its zoom ended when the zoomed agent is not among those `shown`. */
export function settleZoom(grid: TerminalGrid, shown: readonly ProfileId[]): TerminalGrid {
  const zoomed = zoomInEffect(grid, shown);
  return zoomed === grid.zoomed ? grid : { ...grid, zoomed };
}

/** The zoom on `agent` (another zoomed agent gives way), or off when it is the one zoomed. */
export function toggleZoom(grid: TerminalGrid, agent: ProfileId): TerminalGrid {
  return { ...grid, zoomed: grid.zoomed === agent ? null : agent };
}

/** Zoomed on `agent`: the zoom follows the keyboard from tile to tile. */
export function zoomTo(grid: TerminalGrid, agent: ProfileId): TerminalGrid {
  return grid.zoomed === agent ? grid : { ...grid, zoomed: agent };
}

/**
 * Whether one more agent can be chosen: fewer than 9 chosen among those the window knows
 * (an agent it no longer knows gives up its place at the next edit).
 */
export function canChooseMore(grid: TerminalGrid, known: readonly ProfileId[]): boolean {
  return kept(grid.chosen, known).length < MAX_GRID_TILES;
}

/**
 * `agent` chosen, in the last place; the grid shows the chosen agents. Agents the window no
 * longer knows leave the choice; an agent already chosen keeps its place; with 9 chosen the
 * grid is unchanged but for showing the choice.
 */
export function chooseAgent(grid: TerminalGrid, agent: ProfileId, known: readonly ProfileId[]): TerminalGrid {
  const chosen = kept(grid.chosen, known);
  if (!chosen.includes(agent) && chosen.length < MAX_GRID_TILES && known.includes(agent)) chosen.push(agent);
  return { ...grid, shows: 'chosen', chosen };
}

/** `agent` out of the choice (the others keep their order); its zoom ends. */
export function removeAgent(grid: TerminalGrid, agent: ProfileId): TerminalGrid {
  return { ...grid, chosen: grid.chosen.filter((id) => id !== agent), zoomed: grid.zoomed === agent ? null : grid.zoomed };
}

/** The grid showing `shows`; the choice is kept for when it shows the chosen agents again. */
export function showMode(grid: TerminalGrid, shows: GridShows): TerminalGrid {
  return { ...grid, shows };
}

function kept(chosen: readonly ProfileId[], known: readonly ProfileId[]): ProfileId[] {
  return unique(chosen).filter((id) => known.includes(id));
}

/** The modes in the order offered, with the words the grid's switch shows. */
export const GRID_MODES: readonly { shows: GridShows; label: string; title: string }[] = [
  { shows: 'chosen', label: 'Chosen', title: 'The agents you chose, in the places you gave them' },
  { shows: 'needs_you', label: 'Need me', title: 'Every agent that asks you something, failed, or may be stuck, the longest waiting first' },
  { shows: 'working', label: 'Working', title: 'Every agent at work on a task' },
];
