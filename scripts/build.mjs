// Builds dist/: each module of src/ as JavaScript (dist/core/..., what scripts, bench and test
// helpers import), and the CLI as a bundle (dist/bundle/) for bin/fanlake.
//
// esbuild turns each file's TypeScript into JavaScript without checking its types: the type
// check is tsc's (`make test` runs it beside the tests, `npm run typecheck` alone), and
// tsconfig.json's isolatedModules makes tsc refuse what a file-by-file transpiler would get
// wrong. tsc's emit checked the whole program again before every `make setup`.
//
// Node's ESM loader pays for every module file it resolves and reads, and unbundled
// `fanlake extract` loaded a few hundred (fanlake's own, zod's, yargs and its helpers,
// undici's) before its first request; bundled, it loads a few chunks and undici's own files.
// Each command stays its own chunk, loaded on demand.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const modules = readdirSync('src', { recursive: true }).filter((file) => file.endsWith('.ts')).map((file) => join('src', file));
rmSync('dist', { recursive: true, force: true });
await build({
  entryPoints: modules,
  outdir: 'dist',
  outbase: 'src',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
});

// Bundled: pure JavaScript that reads no files of its own, ESM or CommonJS (Node parses each
// CommonJS file's source again to find its exports when an ES module imports it, at every start
// of a command). DuckDB's native bindings stay in node_modules, as does every other dependency,
// loaded only by the commands that use it: some read their own files at run time (the
// browser), and undici is loaded by a path of its own (src/extract/http/undici-agent.ts).
const BUNDLED = new Set(['zod', 'yargs', 'p-limit', '@duckdb/node-api', 'yaml', 'markdown-it', 'vega', 'vega-lite']);
const { dependencies } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

// Every import of `string-width` but the stand-in's own goes to the stand-in (see that file).
const LAZY_STRING_WIDTH = new URL('./lazy-string-width.js', import.meta.url).pathname;
const lazyStringWidth = {
  name: 'lazy-string-width',
  setup(build) {
    build.onResolve({ filter: /^string-width$/ }, (args) => (args.importer === LAZY_STRING_WIDTH ? undefined : { path: LAZY_STRING_WIDTH }));
  },
};

await build({
  entryPoints: ['src/cli/main.ts'],
  plugins: [lazyStringWidth],
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
  // `NODE_OPTIONS=--enable-source-maps` with FANLAKE_DEBUG=1 prints a failure's stack in src/
  // lines (no cost without the flag).
  sourcemap: true,
  logLevel: 'warning',
});
