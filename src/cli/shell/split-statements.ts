/** A complete statement and the input line it starts on (1-based), for error messages. */
export interface Statement {
  sql: string;
  line: number;
}

/**
 * Cuts SQL text into statements at each `;` that is not inside a string, a quoted name, a
 * dollar-quoted string or a comment. What follows the last `;` is returned as `rest`, and
 * `pending` says whether it holds more than blanks and comments: a statement still being typed. DuckDB parses each statement itself; this only
 * finds their ends, which DuckDB cannot do for text that is not complete yet.
 */
export function splitStatements(text: string, firstLine = 1): { statements: Statement[]; rest: string; pending: boolean } {
  const statements: Statement[] = [];
  let start = 0;
  let line = firstLine;
  let startLine: number | undefined;
  let i = 0;
  const closeAt = (end: string, from: number): number => {
    const at = text.indexOf(end, from);
    return at === -1 ? text.length : at + end.length;
  };
  while (i < text.length) {
    const char = text[i]!;
    let next = i + 1;
    const comment = (char === '-' && text[i + 1] === '-') || (char === '/' && text[i + 1] === '*');
    if (char === "'" || char === '"') next = closeQuoted(text, i + 1, char);
    else if (char === '-' && comment) next = closeAt('\n', i);
    else if (comment) next = closeAt('*/', i + 2);
    else if (char === '$') {
      const tag = /^\$[A-Za-z_]*\$/.exec(text.slice(i, i + 64))?.[0];
      if (tag) next = closeAt(tag, i + tag.length);
    }
    if (startLine === undefined && !comment && !/\s/.test(char) && char !== ';') startLine = line;
    if (char === ';') {
      const sql = text.slice(start, i).trim();
      if (startLine !== undefined) statements.push({ sql, line: startLine });
      start = i + 1;
      startLine = undefined;
    }
    line += countNewlines(text, i, next);
    i = next;
  }
  return { statements, rest: text.slice(start), pending: startLine !== undefined };
}

/** Index after the quote closing a string or quoted name opened before `from`; doubled quotes escape. */
function closeQuoted(text: string, from: number, quote: string): number {
  let i = from;
  while (i < text.length) {
    if (text[i] === quote) {
      if (text[i + 1] === quote) i += 2;
      else return i + 1;
    } else i += 1;
  }
  return text.length;
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0;
  for (let i = from; i < to; i++) if (text[i] === '\n') count += 1;
  return count;
}
