import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO } from './helpers/cli.js';

/**
 * The folders of `src/` as layers, from the bottom: a module imports only from its own layer
 * or one below it. The push receiver's journal (`listen`) sits below the raw contract, whose
 * run summaries record positions in it, and below extract and load, which read it; the raw
 * contract sits below extract, which writes what it describes, and load, which reads it; the
 * warehouse (the file, its readers, schema `meta` and fanlake's bookkeeping in it) sits below
 * extract, which reads the load ledger to write a snapshot as a difference, and everything else
 * that opens it. Privacy (access requests) reads what the models built.
 */
const LAYERS = ['core', 'config', 'sources', 'listen', 'raw-contract', 'warehouse', 'extract', 'load', 'models', 'privacy', 'reports', 'pipeline', 'schedule', 'delivery', 'cli'];

/** Beside the layers: the simulator uses only these, and only the CLI (`simulate`) uses it. */
const SIMULATOR_USES = ['core', 'sources'];
const SIMULATOR_USED_BY = ['cli'];

const SRC = join(REPO, 'src');

/** Why `from` may not import `to` (folders of src/), or undefined when it may. */
function violation(from: string, to: string): string | undefined {
  if (from === to) return undefined;
  if (from === 'simulator') return SIMULATOR_USES.includes(to) ? undefined : `the simulator uses only ${SIMULATOR_USES.join(' and ')}`;
  if (to === 'simulator') return SIMULATOR_USED_BY.includes(from) ? undefined : `only ${SIMULATOR_USED_BY.join(', ')} uses the simulator`;
  return LAYERS.indexOf(from) > LAYERS.indexOf(to) ? undefined : `${from} is below ${to}`;
}

/** Every relative import (static, `import type`, re-export, dynamic) of every module under src/, as paths from src/. */
function imports(): { file: string; target: string }[] {
  const found: { file: string; target: string }[] = [];
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith('.ts')) {
        for (const imported of ts.preProcessFile(readFileSync(path, 'utf8'), true, true).importedFiles) {
          if (imported.fileName.startsWith('.')) found.push({ file: relative(SRC, path), target: relative(SRC, resolve(dirname(path), imported.fileName)) });
        }
      }
    }
  };
  visit(SRC);
  return found;
}

const folderOf = (path: string) => path.split('/')[0]!;

describe('the import graph of src/', () => {
  it('places every folder of src/ in a layer, or beside them as the simulator', () => {
    const folders = readdirSync(SRC, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    expect(folders.filter((folder) => !LAYERS.includes(folder) && folder !== 'simulator')).toEqual([]);
  });

  it('has no import against the layers, and names each one it finds', () => {
    const found = imports();
    expect(found.length).toBeGreaterThan(500);
    const violations = found.flatMap(({ file, target }) => {
      const why = violation(folderOf(file), folderOf(target));
      return why === undefined ? [] : [`src/${file} imports src/${target}: ${why}`];
    });
    expect(violations).toEqual([]);
  });

  it('would name an import from a lower layer into a higher one, and into or out of the simulator', () => {
    expect(violation('core', 'config')).toBe('core is below config');
    expect(violation('schedule', 'delivery')).toBe('schedule is below delivery');
    expect(violation('delivery', 'schedule')).toBeUndefined();
    expect(violation('simulator', 'extract')).toBe('the simulator uses only core and sources');
    expect(violation('extract', 'simulator')).toBe('only cli uses the simulator');
    expect(violation('cli', 'simulator')).toBeUndefined();
  });
});
