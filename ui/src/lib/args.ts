/**
 * Splitting the form's one-line "arguments" field into argv entries.
 *
 * Deliberately small, not a shell: whitespace separates arguments; a run of text inside
 * double or single quotes keeps its whitespace and loses the quotes (`--msg "a b"` gives
 * `--msg`, `a b`); quotes may sit inside a word (`--x="a b"` gives `--x=a b`); `""` gives an
 * empty argument. There are no escapes, variables or globs: backslashes are kept as written.
 */

export type SplitArgs = { ok: true; args: string[] } | { ok: false; message: string };

export function splitArgs(line: string): SplitArgs {
  const args: string[] = [];
  let current = '';
  // A word has started (so `""` yields an empty argument rather than nothing).
  let inWord = false;
  let quote: '"' | "'" | null = null;

  for (const ch of line) {
    if (quote) {
      if (ch === quote) quote = null;
      else current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) args.push(current);
      current = '';
      inWord = false;
    } else {
      current += ch;
      inWord = true;
    }
  }

  if (quote) {
    return { ok: false, message: `A ${quote} quote is never closed. Add the closing ${quote}, or remove the quote.` };
  }
  if (inWord) args.push(current);
  return { ok: true, args };
}

/**
 * The inverse for display and for pre-filling the field: quote arguments that would not
 * survive `splitArgs` as written.
 */
export function joinArgs(args: readonly string[]): string {
  return args
    .map((arg) => {
      if (arg !== '' && !/[\s"']/.test(arg)) return arg;
      if (!arg.includes("'")) return `'${arg}'`;
      if (!arg.includes('"')) return `"${arg}"`;
      // Both kinds: single-quote the runs and put each `'` in double quotes, in one word.
      return `'${arg.replaceAll("'", `'"'"'`)}'`;
    })
    .join(' ');
}
