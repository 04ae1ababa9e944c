import { describe, expect, it } from 'vitest';
import { joinArgs, splitArgs } from './args';

describe('splitArgs', () => {
  const cases: [string, string[]][] = [
    ['', []],
    ['   ', []],
    ['--yes', ['--yes']],
    ['  -a   -b\t-c  ', ['-a', '-b', '-c']],
    ['--msg "hello world"', ['--msg', 'hello world']],
    ["--msg 'hello world'", ['--msg', 'hello world']],
    ['--x="a b" y', ['--x=a b', 'y']],
    [`"it's" 'say "hi"'`, ["it's", 'say "hi"']],
    ['"" x', ['', 'x']],
    ["''", ['']],
    ['a"b c"d', ['ab cd']],
    ['C:\\path\\to', ['C:\\path\\to']],
  ];
  it.each(cases)('splits %j', (line, expected) => {
    expect(splitArgs(line)).toEqual({ ok: true, args: expected });
  });

  it('reports an unterminated quote instead of guessing', () => {
    expect(splitArgs('--msg "hello')).toEqual({ ok: false, message: 'A " quote is never closed. Add the closing ", or remove the quote.' });
    expect(splitArgs("it's")).toEqual({ ok: false, message: "A ' quote is never closed. Add the closing ', or remove the quote." });
  });
});

describe('joinArgs', () => {
  const argvs: string[][] = [[], ['a'], ['--msg', 'hello world'], ["it's"], ['say "hi"'], ['', 'x'], [`it's "x"`]];
  it.each(argvs)('round-trips %j through splitArgs', (...argv) => {
    expect(splitArgs(joinArgs(argv))).toEqual({ ok: true, args: argv });
  });
});
