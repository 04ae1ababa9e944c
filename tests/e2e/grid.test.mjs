// The terminal grid in the real window: four agents made on the command line, chosen into the
// grid and started in their tiles; what is typed into the second tile reaches the second agent
// alone; it zooms to the whole grid and back; at the smallest window the four stay usable;
// and after the window is closed and opened again on the same data, the grid shows the same
// four agents in the same places, still live.
//
// Set SWITCHBOARD_E2E_SHOTS to a folder to keep screenshots of the grid at 1280x800 and 820x520.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APP, DEMO_AGENT, launchApp, stopEngine } from './driver.mjs';

const byTestId = (id) => `[data-testid="${id}"]`;
const tileOf = (name) => `${byTestId('grid-tile')}[data-profile-name="${name}"]`;
const NAMES = ['alpha', 'bravo', 'charlie', 'delta'];
const shots = process.env.SWITCHBOARD_E2E_SHOTS;

function cli(dataDir, ...args) {
  return execFileSync(APP, ['--data-dir', dataDir, ...args], { encoding: 'utf8' });
}

/** What the tile's terminal shows (xterm's DOM renderer keeps its rows as text). */
function tileText(browser, name) {
  return browser.execute((selector) => {
    const rows = document.querySelector(selector)?.querySelector('[data-testid="terminal"] .xterm-rows');
    return rows ? Array.from(rows.children, (row) => row.textContent ?? '').join('\n') : '';
  }, tileOf(name));
}

async function waitForTileText(browser, name, needle, timeout = 20_000) {
  await browser.waitUntil(async () => (await tileText(browser, name)).includes(needle), {
    timeout,
    interval: 100,
    timeoutMsg: `${name}'s tile never showed ${JSON.stringify(needle)}; it shows:\n${await tileText(browser, name)}`,
  });
}

/** The tiles in their places: each one's agent, place, whether it has the keyboard and a terminal. */
function tiles(browser) {
  return browser.execute(() =>
    Array.from(document.querySelectorAll('[data-testid="grid-tile"]'), (tile) => {
      const box = tile.getBoundingClientRect();
      return {
        name: tile.getAttribute('data-profile-name'),
        place: Number(tile.getAttribute('data-place')),
        focused: tile.getAttribute('data-focused') === 'true',
        terminal: tile.querySelector('[data-testid="terminal"]') !== null,
        rows: tile.querySelector('.xterm-rows')?.children.length ?? 0,
        box: { left: box.left, top: box.top, right: box.right, bottom: box.bottom, width: box.width, height: box.height },
      };
    }),
  );
}

async function waitForTiles(browser, names, what) {
  await browser.waitUntil(async () => JSON.stringify((await tiles(browser)).map((t) => t.name)) === JSON.stringify(names), {
    timeout: 15_000,
    timeoutMsg: `${what}: the grid does not show ${names.join(', ')} (it shows ${(await tiles(browser)).map((t) => t.name).join(', ')})`,
  });
}

async function waitForFocused(browser, name) {
  await browser.waitUntil(async () => (await tiles(browser)).find((t) => t.focused)?.name === name, {
    timeout: 10_000,
    timeoutMsg: `${name}'s tile did not get the keyboard`,
  });
  // The keyboard is in its terminal (xterm's input), not only marked.
  await browser.waitUntil(
    async () => browser.execute((selector) => document.querySelector(selector)?.contains(document.activeElement) ?? false, tileOf(name)),
    { timeout: 10_000, timeoutMsg: `the keyboard is not in ${name}'s tile` },
  );
}

async function screenshot(browser, file) {
  if (!shots) return;
  mkdirSync(shots, { recursive: true });
  await browser.saveScreenshot(join(shots, file));
}

test('four agents side by side: typing reaches the focused one alone, zoom and back, and the grid is kept across a restart', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-grid-'));
  const workspace = join(dataDir, 'work');
  mkdirSync(workspace);
  try {
    const first = await launchApp({ dataDir, args: ['--no-demo'] });
    let ids;
    try {
      const { browser } = first;
      await browser.setWindowSize(1280, 800);
      // Each agent shows its own prompt, so each tile says whose terminal it is.
      for (const name of NAMES) {
        cli(dataDir, 'agent', 'add', '--name', name, '--command', DEMO_AGENT, '--cwd', workspace, '--arg', '--prompt', '--arg', `${name}> `);
      }
      ids = Object.fromEntries(JSON.parse(cli(dataDir, 'agent', 'list', '--json')).map((agent) => [agent.name, agent.id]));
      await (await browser.$(`${byTestId('profile-entry')}[data-profile-name="delta"]`)).waitForExist({ timeout: 15_000 });

      await (await browser.$(byTestId('open-grid'))).click();
      await (await browser.$(byTestId('grid-empty'))).waitForExist({ timeout: 10_000 });
      // Chosen one by one from the grid's own picker, each in the next place.
      for (const [at, name] of NAMES.entries()) {
        await (await browser.$(byTestId('grid-add-agent'))).selectByAttribute('value', ids[name]);
        await waitForTiles(browser, NAMES.slice(0, at + 1), `${name} chosen`);
      }
      const view = await browser.$(byTestId('grid-view'));
      assert.equal(`${await view.getAttribute('data-rows')}x${await view.getAttribute('data-cols')}`, '2x2');
      // None runs yet: each starts from its tile, and the window stays on the grid.
      for (const name of NAMES) {
        await (await browser.$(`${tileOf(name)} ${byTestId('grid-tile-start')}`)).click();
        await waitForTileText(browser, name, `${name}> `);
      }
      assert.ok(await view.isExisting(), 'starting an agent in its tile stays in the grid');
      assert.deepEqual((await tiles(browser)).map((t) => [t.name, t.place, t.terminal]), NAMES.map((name, at) => [name, at + 1, true]));
      // Each frame says what its agent is doing: running (idle), never "not started".
      await browser.waitUntil(
        async () => (await browser.execute(() => [...document.querySelectorAll('[data-testid="grid-tile"]')].map((t) => t.getAttribute('data-attention')))).every((state) => state === 'idle'),
        { timeout: 10_000, timeoutMsg: 'a started agent still reads as not started' },
      );
      await screenshot(browser, 'grid-1280x800.png');

      // A click puts the keyboard in the second tile; what is typed there reaches bravo alone.
      await (await browser.$(`${tileOf('bravo')} ${byTestId('terminal')}`)).click();
      await waitForFocused(browser, 'bravo');
      // No character twice: WebKitWebDriver loses a key repeated within one burst (see app.test.mjs).
      await browser.keys([...'grid-two5', 'Enter']);
      await waitForTileText(browser, 'bravo', 'received: grid-two5');
      for (const other of ['alpha', 'charlie', 'delta']) {
        assert.ok(!(await tileText(browser, other)).includes('grid-two5'), `${other} received nothing`);
      }

      // The keys move the keyboard: right to charlie, and what is typed goes there.
      await browser.keys(['Control', 'Shift', 'ArrowRight']);
      await waitForFocused(browser, 'charlie');
      await browser.keys([...'c3', 'Enter']);
      await waitForTileText(browser, 'charlie', 'received: c3');
      assert.ok(!(await tileText(browser, 'bravo')).includes('received: c3'), 'bravo did not receive charlie’s line');

      // Zoom the second to the whole grid: it alone is on screen, its terminal alone mounted.
      const sideRows = (await tiles(browser)).find((t) => t.name === 'bravo').rows;
      await (await browser.$(`${tileOf('bravo')} ${byTestId('grid-tile-zoom')}`)).click();
      await waitForTiles(browser, ['bravo'], 'zoomed');
      assert.equal(await view.getAttribute('data-zoomed'), ids.bravo);
      assert.equal((await browser.$$(byTestId('terminal'))).length, 1, 'only the zoomed tile mounts a terminal');
      // Its terminal fits the whole grid once the resize has settled.
      await browser.waitUntil(async () => ((await tiles(browser))[0]?.rows ?? 0) > sideRows, {
        timeout: 10_000,
        timeoutMsg: 'the zoomed terminal never fitted more rows',
      });
      const [zoomed] = await tiles(browser);
      await waitForTileText(browser, 'bravo', 'received: grid-two5');
      // And back, with its key: the four again, each replaying what its agent printed.
      await browser.keys(['Control', 'Shift', 'z']);
      await waitForTiles(browser, NAMES, 'back from the zoom');
      await waitForTileText(browser, 'bravo', 'received: grid-two5');
      await waitForTileText(browser, 'alpha', 'alpha> ');
      // The keyboard is still bravo's, and the zoom's key never reached it (as Ctrl+Z it would
      // have stopped the agent): it answers the next line.
      await waitForFocused(browser, 'bravo');
      await browser.keys([...'b4', 'Enter']);
      await waitForTileText(browser, 'bravo', 'received: b4');
      const side = await tiles(browser);
      assert.ok(zoomed.box.width > side[1].box.width * 1.8 && zoomed.box.height > side[1].box.height * 1.8, 'the zoomed tile took the whole grid');

      // The smallest window: the four stay side by side in view, each with a usable terminal.
      await browser.setWindowSize(820, 520);
      await browser.waitUntil(async () => (await tiles(browser)).every((t) => t.box.right <= 820 && t.box.bottom <= 520), {
        timeout: 10_000,
        timeoutMsg: 'the tiles do not fit the smallest window',
      });
      await browser.waitUntil(async () => (await tiles(browser)).every((t) => t.rows >= 8 && t.box.width >= 300), {
        timeout: 10_000,
        timeoutMsg: `a tile is too small to use: ${JSON.stringify(await tiles(browser))}`,
      });
      await screenshot(browser, 'grid-820x520.png');
      await browser.setWindowSize(1280, 800);
    } finally {
      await first.close({ keepEngine: true });
    }

    // Opened again on the same data: the same four in the same places, still live.
    const again = await launchApp({ dataDir, args: ['--no-demo'] });
    try {
      const { browser } = again;
      await browser.setWindowSize(1280, 800);
      await (await browser.$(`${byTestId('profile-entry')}[data-profile-name="delta"]`)).waitForExist({ timeout: 15_000 });
      await browser.keys(['Control', 'Shift', 'g']);
      await waitForTiles(browser, NAMES, 'after the restart');
      assert.deepEqual((await tiles(browser)).map((t) => [t.name, t.place]), NAMES.map((name, at) => [name, at + 1]));
      await waitForTileText(browser, 'bravo', 'received: grid-two5');
      for (const name of NAMES) await waitForTileText(browser, name, `${name}> `);
      const settings = await browser.$(byTestId('grid-view'));
      assert.equal(await settings.getAttribute('data-shows'), 'chosen');
      assert.equal(await settings.getAttribute('data-zoomed'), '');
    } finally {
      await again.close();
    }
  } finally {
    stopEngine(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  }
});
