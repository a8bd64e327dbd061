// Bundles the compiled CLI (dist/cli/main.js, from tsc) into dist/bundle/ for bin/fanlake.
// Node's ESM loader pays for every module file it resolves and reads, and unbundled
// `fanlake extract` loaded a few hundred (fanlake's own, zod's, yargs and its helpers,
// undici's) before its first request; bundled, it loads a few chunks and undici's own files.
// Each command stays its own chunk, loaded on demand.
import { readFileSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

// Bundled: pure JavaScript that reads no files of its own, ESM or CommonJS (Node parses each
// CommonJS file's source again to find its exports when an ES module imports it, at every start
// of a command). DuckDB's native bindings stay
// in node_modules, as does every other dependency, loaded only by the commands that use it:
// some read their own files at run time (the browser), and undici is loaded by a path of its own
// (src/extract/http/undici-agent.ts).
const BUNDLED = new Set(['zod', 'yargs', 'p-limit', '@duckdb/node-api', 'yaml', 'markdown-it']);
const { dependencies } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

// Chunk names carry a content hash: emptied first, so the folder holds this build's chunks only.
rmSync('dist/bundle', { recursive: true, force: true });
await build({
  entryPoints: ['dist/cli/main.js'],
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: [...Object.keys(dependencies).filter((name) => !BUNDLED.has(name)), '@duckdb/node-bindings'],
  // The bundled CommonJS (DuckDB's API) requires its native bindings at run time: an ES module
  // has no `require` of its own, so each chunk gets one.
  banner: { js: "import { createRequire as createBundleRequire } from 'node:module'; const require = createBundleRequire(import.meta.url);" },
  // Maps to the TypeScript through tsc's own maps: `NODE_OPTIONS=--enable-source-maps` with
  // FANLAKE_DEBUG=1 prints a failure's stack in src/ lines (no cost without the flag).
  sourcemap: true,
  logLevel: 'warning',
});
