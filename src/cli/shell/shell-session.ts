import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import { redact } from '../../core/secrets.js';
import { errorMessage } from '../../core/errors.js';
import { type DuckDBBudget, quoteLiteral } from '../../core/duckdb.js';
import { runReadOnlyStatement } from '../../warehouse/warehouse.js';
import { FORMATS, type Format, formatResult, type ResultSet } from '../format-rows.js';
import { splitStatements } from './split-statements.js';

export const SHELL_HELP = `Statements end with ; and may span lines. Dot commands take a line of their own:
  .tables [PATTERN]      list tables and views (PATTERN as in LIKE, e.g. marts.%)
  .schema [NAME]         CREATE statements of every table and view, or of NAME
  .mode [FORMAT]         output format: ${FORMATS.join(', ')} (now: %MODE%)
  .timer on|off          print how long each statement took
  .read FILE             run the statements in FILE
  .output [FILE]         write results to FILE; without FILE back to the terminal
  .help                  this text
  .exit, .quit           leave (Ctrl-D does too; Ctrl-C cancels a running query)
Each statement opens the warehouse read-only on its own and closes it, so loads and builds
in other processes never wait for this shell longer than one statement. Nothing is kept
between statements but the settings above: temporary tables, SET and ATTACH last for one
statement.`;

/** Where a session writes: results (also to `.output` files) and errors. */
export interface ShellOutput {
  result(text: string): void;
  error(text: string): void;
}

/** Where a line came from, for error messages: piped input and `.read` files name their line. */
interface LineOrigin {
  file?: string;
  line: number;
}

/**
 * The shell's state machine, apart from the terminal: it takes input a line at a time, runs
 * each complete statement on its own read-only connection, and handles dot commands. Only
 * its settings (mode, timer, output) live between statements.
 */
export class ShellSession {
  mode: Format = 'table';
  timer = false;
  /** Statements and commands that failed; a piped session exits 1 when there were any. */
  failures = 0;
  #buffer = '';
  #bufferOrigin: LineOrigin = { line: 1 };
  #running: DuckDBConnection | undefined;
  #outputFile: { path: string; fd: number } | undefined;

  constructor(
    private readonly dataDir: string,
    private readonly output: ShellOutput,
    /** Whether errors name their line: true for piped input, where the line is what one needs to find. */
    private readonly nameLines: boolean,
    /** What DuckDB may use per statement (config/duckdb-budget.ts); DuckDB's defaults when absent. */
    private readonly budget: DuckDBBudget = {},
  ) {}

  /** True while a statement is being typed across lines (the prompt shows a continuation). */
  get pending(): boolean {
    return this.#buffer !== '';
  }

  /** Feeds one input line; `exit` when the line asked to leave. */
  async feedLine(line: string, origin: LineOrigin): Promise<'continue' | 'exit'> {
    if (!this.pending && line.trim().startsWith('.')) return this.#dotCommand(line.trim(), origin);
    if (!this.pending) this.#bufferOrigin = origin;
    this.#buffer += `${line}\n`;
    const { statements, rest, pending } = splitStatements(this.#buffer, this.#bufferOrigin.line);
    const restLine = this.#bufferOrigin.line + newlines(this.#buffer.slice(0, this.#buffer.length - rest.length));
    const file = this.#bufferOrigin.file;
    this.#buffer = pending ? rest : '';
    this.#bufferOrigin = { file, line: restLine };
    for (const statement of statements) await this.#runStatement(statement.sql, { file, line: statement.line });
    return 'continue';
  }

  /** Ctrl-C: cancels the running statement, or drops a half-typed one. */
  interrupt(): 'cancelled' | 'cleared' {
    if (this.#running) {
      this.#running.interrupt();
      return 'cancelled';
    }
    this.#buffer = '';
    return 'cleared';
  }

  /** End of input: a statement left without its `;` is an error, not silently dropped. */
  finish(): void {
    if (this.pending) this.#fail(this.#bufferOrigin, 'incomplete statement at the end of the input (missing ;)');
    this.#buffer = '';
    this.#closeOutputFile();
  }

  async #runStatement(sql: string, origin: LineOrigin, render: (result: ResultSet) => string = (result) => formatResult(result, this.mode)): Promise<void> {
    const started = performance.now();
    let result: ResultSet;
    try {
      result = await runReadOnlyStatement(this.dataDir, sql, this.budget, (connection) => (this.#running = connection));
    } catch (error) {
      this.#fail(origin, errorMessage(error));
      return;
    }
    this.#write(render(result));
    if (this.timer) this.#write(`Run Time: ${((performance.now() - started) / 1000).toFixed(3)} s`);
  }

  async #dotCommand(line: string, origin: LineOrigin): Promise<'continue' | 'exit'> {
    const [command, ...rest] = line.split(/\s+/);
    const argument = rest.join(' ');
    switch (command) {
      case '.exit':
      case '.quit':
        return 'exit';
      case '.help':
        this.output.result(SHELL_HELP.replace('%MODE%', this.mode));
        break;
      case '.tables':
        await this.#runStatement(
          `select schema_name || '.' || table_name as name from (select schema_name, table_name from duckdb_tables() union all select schema_name, view_name from duckdb_views() where not internal) where name like ${quoteLiteral(argument || '%')} order by name`,
          origin,
        );
        break;
      case '.schema':
        await this.#runStatement(
          `select sql from (select schema_name, table_name as name, sql from duckdb_tables() union all select schema_name, view_name, sql from duckdb_views() where not internal) where ${argument ? `name = ${quoteLiteral(argument)} or schema_name || '.' || name = ${quoteLiteral(argument)}` : 'true'} order by schema_name, name`,
          origin,
          // As the DuckDB CLI: the statements themselves, ready to copy, whatever the mode.
          (result) => result.rows.map(([sql]) => String(sql)).join('\n') || '(no such table or view)',
        );
        break;
      case '.mode':
        if (!argument) this.output.result(`mode ${this.mode}`);
        else if ((FORMATS as readonly string[]).includes(argument)) this.mode = argument as Format;
        else this.#fail(origin, `.mode takes one of ${FORMATS.join(', ')}`);
        break;
      case '.timer':
        if (argument === 'on' || argument === 'off') this.timer = argument === 'on';
        else this.#fail(origin, '.timer takes on or off');
        break;
      case '.read':
        await this.#read(argument, origin);
        break;
      case '.output':
        this.#closeOutputFile();
        if (argument) {
          try {
            this.#outputFile = { path: argument, fd: openSync(argument, 'w') };
          } catch (error) {
            this.#fail(origin, `cannot write ${argument}: ${errorMessage(error)}`);
          }
        }
        break;
      default:
        this.#fail(origin, `unknown command ${command}; .help lists them`);
    }
    return 'continue';
  }

  async #read(path: string, origin: LineOrigin): Promise<void> {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      this.#fail(origin, `cannot read ${path || '(no file named)'}: ${errorMessage(error)}`);
      return;
    }
    const lines = text.split(/\r?\n/);
    if (lines.at(-1) === '') lines.pop();
    for (const [index, line] of lines.entries()) {
      if ((await this.feedLine(line, { file: path, line: index + 1 })) === 'exit') break;
    }
    if (this.pending) {
      this.#fail(this.#bufferOrigin, 'incomplete statement at the end of the file (missing ;)');
      this.#buffer = '';
    }
  }

  #write(text: string): void {
    if (this.#outputFile) writeSync(this.#outputFile.fd, `${redact(text)}\n`);
    else this.output.result(text);
  }

  #fail(origin: LineOrigin, message: string): void {
    this.failures += 1;
    const where = origin.file ? `${origin.file} line ${origin.line}: ` : this.nameLines ? `line ${origin.line}: ` : '';
    this.output.error(`${where}${message}`);
  }

  #closeOutputFile(): void {
    if (this.#outputFile) closeSync(this.#outputFile.fd);
    this.#outputFile = undefined;
  }
}

function newlines(text: string): number {
  let count = 0;
  for (const char of text) if (char === '\n') count += 1;
  return count;
}
