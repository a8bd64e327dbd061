/**
 * A date window of the ticketing API: whole Unix seconds, both ends included. The server
 * compares `from * 1000 <= last_update_ms <= to * 1000`, so adjacent windows share their
 * boundary second (a record at 12:00:00.500 lies after second 12:00:00 and before
 * 12:00:01); the overlap is read twice and deduplicated by the load.
 */
export interface DateWindow {
  readonly from: number;
  readonly to: number;
}

/** Splits [from, to] into windows of at most `maxSeconds`, adjacent ones sharing a boundary. */
export function splitRange(from: number, to: number, maxSeconds: number): DateWindow[] {
  if (to < from) return [];
  const windows: DateWindow[] = [];
  for (let start = from; ; start += maxSeconds) {
    const end = Math.min(to, start + maxSeconds);
    windows.push({ from: start, to: end });
    if (end >= to) return windows;
  }
}

/**
 * Cuts a window at the given seconds (for example where the pages of a failed pass began),
 * keeping only cuts strictly inside it. Returns the window itself when nothing cuts it.
 */
export function cutWindow(window: DateWindow, cuts: Iterable<number>): DateWindow[] {
  const inside = [...new Set(cuts)].filter((cut) => cut > window.from && cut < window.to).sort((a, b) => a - b);
  const bounds = [window.from, ...inside, window.to];
  return bounds.slice(1).map((to, k) => ({ from: bounds[k]!, to }));
}

/** Halves a window; undefined when it is too short to split (whole-second resolution). */
export function halve(window: DateWindow): [DateWindow, DateWindow] | undefined {
  if (window.to - window.from < 2) return undefined;
  const mid = Math.floor((window.from + window.to) / 2);
  return [{ from: window.from, to: mid }, { from: mid, to: window.to }];
}

export function describeWindow(window: DateWindow): string {
  const iso = (s: number) => new Date(s * 1000).toISOString().replace('.000Z', 'Z');
  return `${iso(window.from)}..${iso(window.to)}`;
}
