// Preloaded into a CLI child (NODE_OPTIONS=--import): writes its peak RSS in KiB, from its
// own getrusage(2), to $FANLAKE_TEST_MAX_RSS_FILE as it exits.
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  if (process.env.FANLAKE_TEST_MAX_RSS_FILE) writeFileSync(process.env.FANLAKE_TEST_MAX_RSS_FILE, String(process.resourceUsage().maxRSS));
});
