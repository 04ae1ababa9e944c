/**
 * A changed file drawn by CodeMirror's merge view, read-only: the file as it is now with the
 * removed lines between (`unifiedMergeView`), or its two sides next to each other (`MergeView`).
 * The text is the agent's and is untrusted: CodeMirror puts it in the DOM as text, never as
 * markup. Its colouring comes from the file's name (`@codemirror/language-data`, each language
 * loaded only when a file needs it). A gutter beside the lines takes the user's line comments:
 * every line of the file as it is now, and the removed lines of the file as it was.
 */
import { mount, unmount } from 'svelte';
import { MergeView, unifiedMergeView, Chunk } from '@codemirror/merge';
import { Compartment, EditorState, StateEffect, StateField, Text, type Extension } from '@codemirror/state';
import { EditorView, GutterMarker, gutter, lineNumbers } from '@codemirror/view';
import { HighlightStyle, LanguageDescription, syntaxHighlighting } from '@codemirror/language';
import { tags } from '@lezer/highlight';
import Icon from '../components/Icon.svelte';
import type { Side } from './changes';

export type DiffLayout = 'unified' | 'split';

export interface DiffOptions {
  path: string;
  before: string;
  after: string;
  layout: DiffLayout;
  /** The user asked to comment on a line (1-based, on its side). */
  onComment: (line: number, side: Side) => void;
}

export interface DiffHandle {
  /** Mark the lines that carry a comment. */
  setCommented(lines: readonly { line: number; side: Side }[]): void;
  destroy(): void;
}

/** Unchanged stretches longer than this are folded to a bar that unfolds on a click. */
const COLLAPSE = { margin: 3, minSize: 6 };

/** The lines carrying a comment, on one editor's side. */
const setCommented = StateEffect.define<ReadonlySet<number>>();
const commentedLines = StateField.define<ReadonlySet<number>>({
  create: () => new Set(),
  update: (value, tr) => tr.effects.reduce((set, effect) => (effect.is(setCommented) ? effect.value : set), value),
});

class CommentMarker extends GutterMarker {
  #icon: ReturnType<typeof mount> | null = null;

  constructor(
    readonly line: number,
    readonly side: Side,
    readonly commented: boolean,
    readonly onComment: (line: number, side: Side) => void,
  ) {
    super();
  }

  eq(other: GutterMarker): boolean {
    return other instanceof CommentMarker && other.line === this.line && other.side === this.side && other.commented === this.commented;
  }

  toDOM(): HTMLElement {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = this.commented ? 'cm-comment-line commented' : 'cm-comment-line';
    button.dataset.line = String(this.line);
    button.dataset.side = this.side;
    button.dataset.testid = 'diff-comment-line';
    const where = this.side === 'before' ? `line ${this.line} as it was` : `line ${this.line}`;
    button.setAttribute('aria-label', this.commented ? `Your comment on ${where}` : `Comment on ${where}`);
    button.title = this.commented ? `Your comment on ${where}: edit it in the list` : `Comment on ${where}`;
    // The editor must not take the press as a selection start.
    button.addEventListener('mousedown', (event) => event.preventDefault());
    button.addEventListener('click', (event) => {
      event.preventDefault();
      this.onComment(this.line, this.side);
    });
    this.#icon = mount(Icon, { target: button, props: { name: 'comment' } });
    return button;
  }

  destroy(): void {
    if (this.#icon) void unmount(this.#icon);
    this.#icon = null;
  }
}

/** What sizes the comment gutter before any line has a marker: as wide as one, never seen or clicked. */
class CommentSpace extends GutterMarker {
  toDOM(): HTMLElement {
    const space = document.createElement('span');
    space.className = 'cm-comment-line';
    space.textContent = '\u2003';
    return space;
  }
}

/** The comment gutter of one side; `allowed` says which lines take a comment (null: all). */
function commentGutter(side: Side, allowed: ReadonlySet<number> | null, onComment: DiffOptions['onComment']): Extension {
  return [
    commentedLines,
    gutter({
      class: 'cm-comment-gutter',
      lineMarker(view, block) {
        const line = view.state.doc.lineAt(block.from).number;
        if (allowed !== null && !allowed.has(line)) return null;
        return new CommentMarker(line, side, view.state.field(commentedLines).has(line), onComment);
      },
      lineMarkerChange: (update) => update.transactions.some((tr) => tr.effects.some((e) => e.is(setCommented))),
      initialSpacer: () => new CommentSpace(),
    }),
  ];
}

/** The lines of the file as it was that were removed or changed: those a comment can be left on. */
function removedLines(before: Text, after: Text): Set<number> {
  const lines = new Set<number>();
  // As the merge view diffs (its default scan limit), so the lines offered are the ones it marks.
  for (const chunk of Chunk.build(before, after, { scanLimit: 500 })) {
    if (chunk.toA <= chunk.fromA) continue;
    const first = before.lineAt(chunk.fromA).number;
    const last = before.lineAt(Math.min(chunk.endA, before.length)).number;
    for (let n = first; n <= last; n++) lines.add(n);
  }
  return lines;
}

/** Colours of the syntax, from the app's palette, so they read in the dark and the light theme. */
const highlight = HighlightStyle.define([
  { tag: [tags.keyword, tags.operatorKeyword, tags.modifier, tags.controlKeyword], color: 'var(--purple)' },
  { tag: [tags.string, tags.special(tags.string), tags.regexp], color: 'var(--green)' },
  { tag: [tags.number, tags.bool, tags.null, tags.atom], color: 'var(--amber)' },
  { tag: [tags.comment, tags.lineComment, tags.blockComment], color: 'var(--text-faint)', fontStyle: 'italic' },
  { tag: [tags.typeName, tags.className, tags.namespace], color: 'var(--accent-text)' },
  { tag: [tags.function(tags.variableName), tags.function(tags.propertyName)], color: 'var(--accent-text)' },
  { tag: [tags.heading], color: 'var(--accent-text)', fontWeight: 'bold' },
  { tag: [tags.tagName, tags.attributeName], color: 'var(--purple)' },
  { tag: tags.invalid, color: 'var(--red)' },
]);

/** The editor's look, from the app's palette (app.css). */
const theme = EditorView.theme({
  '&': { color: 'var(--text)', backgroundColor: 'var(--bg)', fontSize: '0.78rem' },
  '&.cm-focused': { outline: 'none' },
  '.cm-scroller': { fontFamily: 'var(--mono)', lineHeight: '1.5', overflow: 'visible' },
  '.cm-content': { caretColor: 'transparent' },
  '.cm-gutters': { backgroundColor: 'var(--bg-raised)', color: 'var(--text-faint)', borderRight: '1px solid var(--border-soft)' },
  '.cm-lineNumbers .cm-gutterElement': { padding: '0 0.4rem 0 0.5rem', minWidth: '2.4rem' },
  '.cm-comment-gutter .cm-gutterElement': { display: 'flex', alignItems: 'center' },
  '.cm-comment-line': {
    display: 'flex',
    alignItems: 'center',
    padding: '0 0.2rem',
    fontSize: '0.75rem',
    lineHeight: '1',
    color: 'var(--accent-text)',
    background: 'none',
    border: 'none',
    borderRadius: '3px',
    opacity: '0',
    cursor: 'pointer',
  },
  '.cm-gutterElement:hover .cm-comment-line, .cm-comment-line:focus-visible': { opacity: '1' },
  '.cm-comment-line.commented': { opacity: '1', color: 'var(--amber)' },
  '.cm-comment-line:hover': { background: 'var(--bg-hover)' },
  '&.cm-merge-b .cm-changedLine, .cm-insertedLine, .cm-inlineChangedLine': { backgroundColor: 'color-mix(in srgb, var(--green) 13%, transparent)' },
  '&.cm-merge-a .cm-changedLine, .cm-deletedChunk': { backgroundColor: 'color-mix(in srgb, var(--red) 13%, transparent)' },
  '&.cm-merge-b .cm-changedText, .cm-insertedLine .cm-changedText': { background: 'color-mix(in srgb, var(--green) 22%, transparent)' },
  '&.cm-merge-a .cm-changedText, .cm-deletedChunk .cm-deletedText, .cm-deletedChunk .cm-changedText': {
    background: 'color-mix(in srgb, var(--red) 22%, transparent)',
  },
  '.cm-deletedChunk': { color: 'var(--text-dim)' },
  '.cm-changedLineGutter, &.cm-merge-b .cm-changedLineGutter': { background: 'var(--green)' },
  '&.cm-merge-a .cm-changedLineGutter, .cm-deletedLineGutter': { background: 'var(--red)' },
  // Its own marks around the words are symbols few fonts have: the bar's colour says enough.
  '.cm-collapsedLines': { color: 'var(--text-dim)', background: 'var(--bg-raised)', fontFamily: 'var(--sans)', fontSize: '0.75rem' },
  '.cm-collapsedLines:before, .cm-collapsedLines:after': { content: 'none' },
  '.cm-collapsedLines:hover': { background: 'var(--bg-hover)' },
});

/** What every editor of a diff has: read-only, wrapped, numbered, coloured. */
function base(language: Compartment): Extension {
  return [EditorState.readOnly.of(true), EditorView.editable.of(false), EditorView.lineWrapping, lineNumbers(), theme, syntaxHighlighting(highlight), language.of([])];
}

/**
 * The file's language, loaded when first needed: none for a name no language claims (or when
 * it cannot be loaded: the diff stays uncoloured).
 */
async function languageOf(path: string): Promise<Extension | null> {
  const { languages } = await import('@codemirror/language-data');
  const found = LanguageDescription.matchFilename(languages, path.split('/').pop() ?? path);
  if (!found) return null;
  try {
    return await found.load();
  } catch (reason) {
    console.warn(`the ${found.name} colouring could not be loaded:`, reason);
    return null;
  }
}

/** Draw `options`' file into `parent`. */
export function showDiff(parent: HTMLElement, options: DiffOptions): DiffHandle {
  const { path, before, after, layout, onComment } = options;
  const languages = [new Compartment(), new Compartment()];
  let destroyed = false;
  let views: { view: EditorView; side: Side }[];
  let destroyViews: () => void;
  if (layout === 'unified') {
    const view = new EditorView({
      parent,
      state: EditorState.create({
        doc: after,
        extensions: [
          base(languages[0]),
          commentGutter('after', null, onComment),
          unifiedMergeView({ original: before, mergeControls: false, gutter: true, syntaxHighlightDeletions: true, collapseUnchanged: COLLAPSE }),
        ],
      }),
    });
    views = [{ view, side: 'after' }];
    destroyViews = () => view.destroy();
  } else {
    const removed = removedLines(Text.of(before.split('\n')), Text.of(after.split('\n')));
    const merge = new MergeView({
      parent,
      a: { doc: before, extensions: [base(languages[0]), commentGutter('before', removed, onComment)] },
      b: { doc: after, extensions: [base(languages[1]), commentGutter('after', null, onComment)] },
      gutter: true,
      highlightChanges: true,
      collapseUnchanged: COLLAPSE,
    });
    views = [
      { view: merge.a, side: 'before' },
      { view: merge.b, side: 'after' },
    ];
    destroyViews = () => merge.destroy();
  }
  void languageOf(path).then((language) => {
    if (destroyed || language === null) return;
    views.forEach(({ view }, i) => view.dispatch({ effects: languages[i].reconfigure(language) }));
  });
  return {
    setCommented(lines) {
      for (const { view, side } of views) {
        const mine = new Set(lines.filter((l) => l.side === side).map((l) => l.line));
        view.dispatch({ effects: setCommented.of(mine) });
      }
    },
    destroy() {
      destroyed = true;
      destroyViews();
    },
  };
}
