// A second process for lock tests: takes a data directory's writer lock through the built
// module, says so, and holds it until its stdin closes (or it is killed).
import { acquireWriterLock } from '../../dist/core/writer-lock.js';

const [dataDir, command = 'test-holder'] = process.argv.slice(2);
const lock = await acquireWriterLock(dataDir, { command });
process.stdout.write(`held by pid ${process.pid}\n`);
process.stdin.resume();
process.stdin.on('end', async () => {
  await lock.release();
  process.stdout.write('released\n');
});
