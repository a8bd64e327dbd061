// Preloaded into every CLI child of a season (NODE_OPTIONS=--import, see bench/season-driver.mjs):
// its wall clock (`Date`) follows the season clock in $FANLAKE_TEST_CLOCK_FILE, a JSON
// `{"seasonMs": n, "realMs": m}` meaning "at the machine's time m the season's time was n",
// from which the season's time moves on at the machine's pace. The test rewrites the file
// (atomically) to let simulated hours pass at once; a long-lived process (the receiver) reads
// it again when it changes. A process whose clock jumps forward by at least an interval's
// period runs that interval's callback once, as after a suspended machine wakes: the
// receiver's heartbeat so stays fresh in season time.
import { readFileSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import { installDate } from './fake-date.mjs';

const file = process.env.FANLAKE_TEST_CLOCK_FILE;

if (file) {
  const read = () => JSON.parse(readFileSync(file, 'utf8'));
  let anchor = read();
  const RealDate = installDate(() => anchor.seasonMs + (RealDate.now() - anchor.realMs));

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
    const jumped = Date.now() - before;
    for (const { callback, ms, args } of intervals.values()) if (jumped >= ms) callback(...args);
  });
  watcher.unref();
}
