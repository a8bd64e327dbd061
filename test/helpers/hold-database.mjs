// A second process for busy-file tests: opens a DuckDB file (READ_ONLY or READ_WRITE), says
// so, and keeps it open until its stdin closes.
import { DuckDBInstance } from '@duckdb/node-api';

const [path, mode] = process.argv.slice(2);
const instance = await DuckDBInstance.create(path, { access_mode: mode });
process.stdout.write(`open ${mode}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  instance.closeSync();
  process.stdout.write('closed\n');
});
