import type { ResourceResult } from './resource-result.js';

interface Tally {
  pages: number;
  rows: number;
  expectedRows: number;
  retries: number;
  startedAt: number;
  done?: ResourceResult;
}

/**
 * Progress of an extraction: on a terminal, one line per resource redrawn in place (pages,
 * rows, rate, ETA); elsewhere, plain log lines at most every few seconds per resource.
 */
export class ExtractProgress {
  private readonly tallies = new Map<string, Tally>();
  private timer?: NodeJS.Timeout;
  private drawnLines = 0;
  private lastLogged = new Map<string, number>();

  constructor(
    private readonly stream: NodeJS.WriteStream = process.stderr,
    private readonly interactive = Boolean(process.stderr.isTTY) && !process.env.CI,
    private readonly logEveryMs = 5_000,
  ) {
    if (this.interactive) this.timer = setInterval(() => this.draw(), 250);
  }

  started(key: string): void {
    this.tallies.set(key, { pages: 0, rows: 0, expectedRows: 0, retries: 0, startedAt: performance.now() });
    if (!this.interactive) this.stream.write(`${key}: started\n`);
  }

  /** A page arrived with `rows` items; `newlyExpected` adds to the expected total (window counts). */
  page(key: string, rows: number, newlyExpected = 0): void {
    const tally = this.tallies.get(key);
    if (!tally) return;
    tally.pages++;
    tally.rows += rows;
    tally.expectedRows += newlyExpected;
    if (!this.interactive) {
      const now = performance.now();
      if (now - (this.lastLogged.get(key) ?? tally.startedAt) >= this.logEveryMs) {
        this.lastLogged.set(key, now);
        this.stream.write(`${this.line(key, tally)}\n`);
      }
    }
  }

  retried(key: string): void {
    const tally = this.tallies.get(key);
    if (tally) tally.retries++;
  }

  retriesOf(key: string): number {
    return this.tallies.get(key)?.retries ?? 0;
  }

  finished(key: string, result: ResourceResult): void {
    const tally = this.tallies.get(key);
    if (tally) tally.done = result;
    if (!this.interactive) this.stream.write(`${key}: ${result.status}, ${result.rows} rows in ${result.seconds.toFixed(1)}s\n`);
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.interactive) this.draw();
  }

  private draw(): void {
    const lines = [...this.tallies].map(([key, tally]) => this.line(key, tally));
    if (this.drawnLines > 0) this.stream.write(`\x1b[${this.drawnLines}A`);
    for (const line of lines) this.stream.write(`\x1b[2K${line}\n`);
    this.drawnLines = lines.length;
  }

  private line(key: string, tally: Tally): string {
    const seconds = Math.max(0.001, (performance.now() - tally.startedAt) / 1000);
    const rate = tally.rows / seconds;
    const expected = Math.max(tally.expectedRows, tally.rows);
    if (tally.done) return `${key.padEnd(30)} ${tally.done.status.padEnd(7)} ${fmt(tally.done.rows)} rows in ${tally.done.seconds.toFixed(1)}s`;
    const eta = rate > 0 && expected > tally.rows ? ` ETA ${duration((expected - tally.rows) / rate)}` : '';
    const retries = tally.retries ? ` ${tally.retries} retries` : '';
    return `${key.padEnd(30)} pages ${fmt(tally.pages)}  rows ${fmt(tally.rows)}/${fmt(expected)}  ${fmt(Math.round(rate))} rows/s${eta}${retries}`;
  }
}

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}

function duration(seconds: number): string {
  if (seconds < 60) return `${Math.ceil(seconds)}s`;
  return `${Math.floor(seconds / 60)}m${String(Math.ceil(seconds % 60)).padStart(2, '0')}s`;
}
