import { describe, expect, it } from 'vitest';

/**
 * Titles read as words: a title clamped to a few lines is broken between words, and inside a
 * word only when that word alone is wider than the line (`overflow-wrap: break-word`).
 * `anywhere` also lets the layout squeeze the title down to a letter's width, so "Second long
 * job" was drawn as "Secon d long job" beside its buttons.
 */
const sources = import.meta.glob(['../components/**/*.svelte'], { query: '?raw', import: 'default', eager: true }) as Record<string, string>;

/** Each CSS rule of a component's style block: its selector and its declarations. */
function rules(source: string): { selector: string; body: string }[] {
  const style = /<style>([\s\S]*?)<\/style>/.exec(source)?.[1] ?? '';
  const withoutComments = style.replace(/\/\*[\s\S]*?\*\//g, '');
  return [...withoutComments.matchAll(/([^{}]+)\{([^{}]*)\}/g)].map((m) => ({ selector: m[1].trim(), body: m[2] }));
}

describe('titles break between words', () => {
  const clamped = Object.entries(sources).flatMap(([file, source]) =>
    rules(source)
      .filter((rule) => /line-clamp/.test(rule.body))
      .map((rule) => [`${file.replace('../components/', '')} ${rule.selector}`, rule.body] as const),
  );

  it('has clamped titles to look at', () => {
    expect(clamped.map(([name]) => name)).toContain('TaskPanel.svelte .open');
  });

  it.each(clamped)('%s breaks inside a word only when it must', (_name, body) => {
    expect(body).not.toMatch(/overflow-wrap:\s*anywhere|word-break:\s*break-all/);
    expect(body).toMatch(/overflow-wrap:\s*break-word/);
  });

  it("gives a queued task's title room before its buttons, which wrap under it", () => {
    const panel = rules(sources['../components/TaskPanel.svelte']);
    const rule = (selector: string) => panel.find((r) => r.selector === selector)?.body ?? '';
    expect(rule('.line')).toMatch(/flex-wrap:\s*wrap/);
    expect(rule('.open')).toMatch(/flex:\s*1 1 var\(--title-room\)/);
  });
});
