import { afterEach, describe, expect, it } from 'vitest';
import { renderMarkdown } from './markdown';

/** The rendered fragment in a detached element, for inspection. */
function render(markdown: string): HTMLElement {
  const host = document.createElement('div');
  host.append(renderMarkdown(markdown));
  return host;
}

declare global {
  interface Window {
    __pwned?: number;
  }
}

afterEach(() => {
  delete window.__pwned;
});

describe('renderMarkdown', () => {
  it('renders ordinary Markdown', () => {
    const host = render('## Status\n\n- **done** with `code`\n\n| a | b |\n|---|---|\n| 1 | 2 |\n');
    expect(host.querySelector('h2')?.textContent).toBe('Status');
    expect(host.querySelector('li strong')?.textContent).toBe('done');
    expect(host.querySelector('code')?.textContent).toBe('code');
    expect(host.querySelectorAll('td')).toHaveLength(2);
  });

  it.each<[string, string]>([
    ['a script', '<script>window.__pwned=1</script>'],
    ['an image with onerror', '<img src=x onerror="window.__pwned=1">'],
    ['an svg onload', '<svg onload="window.__pwned=1"><circle r=1 /></svg>'],
    ['an iframe', '<iframe src="javascript:window.__pwned=1"></iframe>'],
    ['a style sheet', '<style>body{display:none}</style>'],
    ['a form', '<form action="https://evil.example"><button>go</button></form>'],
    ['an event handler on harmless markup', '<p onclick="window.__pwned=1" onmouseover="window.__pwned=1">hi</p>'],
    ['a style attribute', '<p style="position:fixed;inset:0">cover</p>'],
    ['an object', '<object data="x.swf"></object><embed src="x.swf">'],
  ])('removes %s', (_name, markdown) => {
    const host = render(markdown);
    expect(host.querySelector('script, img, svg, iframe, style, form, button, object, embed')).toBeNull();
    const attributes = [...host.querySelectorAll('*')].flatMap((el) => [...el.attributes].map((a) => a.name));
    expect(attributes.filter((name) => name.startsWith('on') || name === 'style' || name === 'src' || name === 'action')).toEqual([]);
    expect(window.__pwned).toBeUndefined();
  });

  it.each([
    '[click](javascript:window.__pwned=1)',
    '<a href="javascript:window.__pwned=1">click</a>',
    '[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
    '[web](https://example.com/x)',
  ])('makes the link in %j inert', (markdown) => {
    const host = render(markdown);
    const link = host.querySelector('a');
    expect(link?.textContent).toMatch(/click|data|web/);
    expect(link?.hasAttribute('href')).toBe(false);
    expect(link?.hasAttribute('target')).toBe(false);
    expect(host.innerHTML).not.toContain('javascript:');
    expect(host.innerHTML).not.toContain('data:text/html');
  });

  it('keeps a web link readable as a title', () => {
    expect(render('[web](https://example.com/x)').querySelector('a')?.getAttribute('title')).toBe('https://example.com/x');
  });

  it('does not let agent text take ids, names or the app\'s classes', () => {
    const host = render('<p id="app" class="primary" name="x">spoof</p>');
    const p = host.querySelector('p');
    expect(p?.getAttributeNames()).toEqual([]);
  });
});
