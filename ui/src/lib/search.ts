/** The search view's words: what each hit is, and its snippet cut into plain and found parts. */
import type { SearchHit } from './bindings';
import { kindWord } from './signals';
import { stateWord } from './tasks';

/** What the hit is, in a word or two: "Task · queued", "Summary · completed", "Question · waiting". */
export function hitLabel(hit: SearchHit): string {
  switch (hit.found.in) {
    case 'task':
      return `Task · ${stateWord(hit.found.state)}`;
    case 'summary':
      return `Summary · ${stateWord(hit.found.state)}`;
    case 'signal':
      return `${kindWord(hit.found.kind)} · ${hit.found.pending ? 'waiting for you' : 'settled'}`;
  }
}

/** The query's words, as the engine reads them. */
export function queryWords(query: string): string[] {
  return query.split(/\s+/).filter(Boolean).map((w) => w.toLowerCase());
}

/**
 * The agents the sidebar lists while the user types in its search box: those whose name, or
 * project folder, holds every word typed (in any case). An empty query lists them all.
 */
export function agentsMatching<T extends { name: string; cwd: string }>(agents: readonly T[], query: string): T[] {
  const words = queryWords(query);
  return agents.filter((agent) => {
    const text = `${agent.name} ${agent.cwd}`.toLowerCase();
    return words.every((word) => text.includes(word));
  });
}

/**
 * The snippet in parts, each word of the query found marked, so the view can draw the marks
 * as elements around plain text (never as HTML).
 */
export function markWords(snippet: string, words: readonly string[]): { text: string; found: boolean }[] {
  const lower = snippet.toLowerCase();
  // Lowercasing may change lengths (rare scripts): then nothing is marked rather than the wrong text.
  if (lower.length !== snippet.length || words.length === 0) return [{ text: snippet, found: false }];
  const marked = new Array<boolean>(snippet.length).fill(false);
  for (const word of words) {
    for (let at = lower.indexOf(word); at !== -1 && word.length > 0; at = lower.indexOf(word, at + word.length)) {
      marked.fill(true, at, at + word.length);
    }
  }
  const parts: { text: string; found: boolean }[] = [];
  for (let i = 0; i < snippet.length; i++) {
    const last = parts.at(-1);
    if (last && last.found === marked[i]) last.text += snippet[i];
    else parts.push({ text: snippet[i], found: marked[i] });
  }
  return parts;
}
