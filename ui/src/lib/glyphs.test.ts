import { describe, expect, it } from 'vitest';

/**
 * The window's own text needs no emoji or symbol font (on a machine without one such glyphs
 * show as empty boxes): icons are drawn by `Icon.svelte`. Agents' text is theirs to show.
 */
const sources = import.meta.glob(['../components/**/*.svelte', '../App.svelte'], {
  query: '?raw',
  import: 'default',
  eager: true,
}) as Record<string, string>;

// Dingbats, miscellaneous symbols and arrows, emoji.
const SYMBOL = /[\u2190-\u21FF\u2600-\u27BF\u2B00-\u2BFF\u{1F000}-\u{1FFFF}]/u;

describe('the window draws its icons', () => {
  it('has components to look at', () => {
    expect(Object.keys(sources).length).toBeGreaterThan(20);
  });

  it.each(Object.entries(sources))('%s has no symbol-font glyph in its markup', (_file, source) => {
    const markup = source
      .replace(/<script[\s\S]*?<\/script>/g, (script) => script.replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, ''))
      .replace(/<!--[\s\S]*?-->/g, '');
    const found = markup.split('\n').filter((line) => SYMBOL.test(line));
    expect(found).toEqual([]);
  });
});
