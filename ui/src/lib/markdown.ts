/**
 * Markdown from agents (task summaries) as a sanitized DOM fragment.
 *
 * Agent output is untrusted, and this is the one place it becomes markup: `marked` turns the
 * Markdown (which may embed raw HTML) into HTML, and DOMPurify keeps only inert formatting.
 * The result is a DocumentFragment, so callers insert nodes and never an HTML string.
 *
 * - No scripts, styles, frames, forms, embedded objects, images or media: nothing that runs,
 *   restyles the app, submits, or loads anything from anywhere (an image URL would tell a
 *   server that the summary was read).
 * - No event handler attributes (DOMPurify drops them; the hook below is a second lock), no
 *   `style`, and no `id`/`name`/`class`.
 * - Links are inert: the `href` is removed (a safe URL is kept as the title, to be read), so
 *   nothing can navigate the app window. The view also swallows clicks on them.
 */
import DOMPurify from 'dompurify';
import { Marked } from 'marked';

const FORBID_TAGS = [
  'script',
  'style',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'applet',
  'form',
  'input',
  'button',
  'textarea',
  'select',
  'option',
  'link',
  'meta',
  'base',
  'img',
  'picture',
  'source',
  'video',
  'audio',
  'track',
  'svg',
  'math',
  'template',
  'dialog',
];

// `id`, `name` and `class` too: agent text must neither clobber DOM globals nor borrow the
// app's own classes to look like part of the app.
const FORBID_ATTR = ['style', 'class', 'id', 'name', 'srcset', 'action', 'formaction', 'background', 'ping', 'target', 'xlink:href'];

const marked = new Marked({ gfm: true, breaks: false });

/** A DOMPurify of our own, so its hooks touch no other user of the library. */
let purifier: ReturnType<typeof DOMPurify> | null = null;

function purify(): ReturnType<typeof DOMPurify> {
  if (purifier) return purifier;
  const instance = DOMPurify(window);
  instance.addHook('uponSanitizeAttribute', (_node, event) => {
    if (event.attrName.toLowerCase().startsWith('on')) {
      event.keepAttr = false;
      event.forceKeepAttr = false;
    }
  });
  instance.addHook('afterSanitizeAttributes', (node) => {
    if (node.nodeName === 'A') {
      // Only what survived the URL check is left here; show it, do not follow it.
      const href = node.getAttribute('href');
      node.removeAttribute('href');
      if (href) node.setAttribute('title', href);
      node.setAttribute('class', 'inert-link');
    }
  });
  purifier = instance;
  return instance;
}

/** The sanitized HTML of `markdown`, as nodes to insert. */
export function renderMarkdown(markdown: string): DocumentFragment {
  const html = marked.parse(markdown, { async: false });
  return purify().sanitize(html, {
    USE_PROFILES: { html: true },
    FORBID_TAGS,
    FORBID_ATTR,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    ALLOW_UNKNOWN_PROTOCOLS: false,
    RETURN_DOM_FRAGMENT: true,
  });
}
