// Preloaded into a CLI child (NODE_OPTIONS=--import): writes its peak RSS in KiB, from its
// own getrusage(2), to $BENCH_MAX_RSS_FILE as it exits.
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  if (process.env.BENCH_MAX_RSS_FILE) writeFileSync(process.env.BENCH_MAX_RSS_FILE, String(process.resourceUsage().maxRSS));
});
