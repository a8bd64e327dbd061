// Preloaded into every CLI child of a season (NODE_OPTIONS=--import, see bench/season-driver.mjs)
// and into `fanlake schedule` in its tests: its wall clock (`Date`) follows the season clock in
// $FANLAKE_TEST_CLOCK_FILE, a JSON `{"seasonMs": n, "realMs": m}` meaning "at the machine's time
// m the season's time was n", from which the season's time moves on at the machine's pace (with
// `"frozen": true` it stands still: a one-shot command judging ages sees the test's time). The
// test rewrites the file (atomically) to let simulated time pass at once; a long-lived process
// (the receiver, the scheduler) reads it again when it changes. When its clock jumps, a process
// does what it would on waking from suspension: an interval whose period the jump covers runs
// its callback once (the receiver's heartbeat so stays fresh in season time), and a timeout
// whose time the jump passed fires at once (the scheduler's sleep ends at the slot moved to).
import { readFileSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import { installDate } from './fake-date.mjs';

const file = process.env.FANLAKE_TEST_CLOCK_FILE;

if (file) {
  const read = () => JSON.parse(readFileSync(file, 'utf8'));
  let anchor = read();
  const RealDate = installDate(() => anchor.seasonMs + (anchor.frozen ? 0 : RealDate.now() - anchor.realMs));

  const intervals = new Map();
  const realSetInterval = globalThis.setInterval;
  const realClearInterval = globalThis.clearInterval;
  globalThis.setInterval = (callback, ms, ...args) => {
    const handle = realSetInterval(callback, ms, ...args);
    intervals.set(handle, { callback, ms, args });
    return handle;
  };
  globalThis.clearInterval = (handle) => {
    intervals.delete(handle);
    realClearInterval(handle);
  };

  // Each pending timeout and the season time it is due at.
  const timeouts = new Map();
  const realSetTimeout = globalThis.setTimeout;
  const realClearTimeout = globalThis.clearTimeout;
  globalThis.setTimeout = (callback, ms, ...args) => {
    if (typeof callback !== 'function') return realSetTimeout(callback, ms, ...args);
    const handle = realSetTimeout(() => {
      timeouts.delete(handle);
      callback(...args);
    }, ms);
    timeouts.set(handle, { callback, args, dueMs: Date.now() + Math.max(1, Number(ms) || 0) });
    return handle;
  };
  globalThis.clearTimeout = (handle) => {
    timeouts.delete(handle);
    realClearTimeout(handle);
  };

  // The directory, not the file: an atomic rewrite replaces the file's inode.
  const watcher = watch(dirname(file), { persistent: false }, (_event, name) => {
    if (name !== basename(file)) return;
    let next;
    try {
      next = read();
    } catch {
      return;
    }
    const before = Date.now();
    anchor = next;
    const now = Date.now();
    const jumped = now - before;
    for (const { callback, ms, args } of intervals.values()) if (jumped >= ms) callback(...args);
    for (const [handle, { callback, args, dueMs }] of [...timeouts]) {
      if (dueMs > now) continue;
      timeouts.delete(handle);
      realClearTimeout(handle);
      callback(...args);
    }
  });
  watcher.unref();
}
