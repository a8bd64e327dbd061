// Preloaded into a CLI child (NODE_OPTIONS=--import, see clockAhead in cli.ts): its wall clock
// (`Date`) runs $FANLAKE_TEST_CLOCK_AHEAD_MS ahead of the machine's. The extractor reads up to
// the last whole second before its run started, so a run whose clock is a second ahead sees
// every change made before it starts, as a run started a second later would: a test moves the
// extractor's clock instead of waiting for the real one. Timers and durations (performance,
// setTimeout) keep real time.
import { installDate } from './fake-date.mjs';

const ahead = Number(process.env.FANLAKE_TEST_CLOCK_AHEAD_MS ?? 0);

if (ahead !== 0) {
  const RealDate = installDate(() => RealDate.now() + ahead);
}
