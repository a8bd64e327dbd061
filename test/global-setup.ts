import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Gives the run one temporary directory and removes it when the run ends. Tests, the
 * processes they start (fanlake, DuckDB, the browser) and the libraries they load all
 * create theirs under `os.tmpdir()`, which reads TMPDIR: before this, a run left about a
 * hundred data dirs, warehouses and working dirs behind, some 700 MB per `make test`.
 * In it, the warehouses test files share: each built once per run, by the first file that
 * asks (test/helpers/shared-warehouse.ts), and copied for every file.
 */
export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'fanlake-tests-'));
  process.env.TMPDIR = root;
  process.env.FANLAKE_TEST_WAREHOUSES = join(root, 'warehouses');
  return () => rmSync(root, { recursive: true, force: true });
}
