import { describe, expect, it } from 'vitest';
import { splitStatements } from '../../src/cli/shell/split-statements.js';

describe('splitStatements', () => {
  it('cuts at semicolons outside strings, quoted names, dollar quotes and comments, with start lines', () => {
    const text = [
      "select 'a;b' as \"c;d\";",
      '-- a comment; not a statement',
      'select 1 /* ; */',
      '  , $$x;y$$ as z; select',
      "'it''s'",
    ].join('\n');
    const { statements, rest, pending } = splitStatements(text, 10);
    expect(statements).toEqual([
      { sql: "select 'a;b' as \"c;d\"", line: 10 },
      { sql: '-- a comment; not a statement\nselect 1 /* ; */\n  , $$x;y$$ as z', line: 12 },
    ]);
    expect(rest).toBe(" select\n'it''s'");
    expect(pending).toBe(true);
  });

  it('blanks and comments after the last statement are not a pending statement; empty statements are dropped', () => {
    expect(splitStatements('select 1;;\n-- done\n')).toEqual({ statements: [{ sql: 'select 1', line: 1 }], rest: '\n-- done\n', pending: false });
  });

  it('an unclosed string keeps everything pending', () => {
    const { statements, pending } = splitStatements("select 'no end;\n");
    expect(statements).toEqual([]);
    expect(pending).toBe(true);
  });
});
