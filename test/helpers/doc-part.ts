import { readFile } from 'node:fs/promises';
import { REPO } from './cli.js';

/**
 * The part of a document between `<!-- NAME:start -->` and `<!-- NAME:end -->`, without the
 * markers; `make docs` writes the generated ones (scripts/generate-docs.mjs).
 */
export async function docPart(file: string, name: string): Promise<string | undefined> {
  const doc = await readFile(`${REPO}/${file}`, 'utf8');
  return new RegExp(`<!-- ${name}:start -->\\n([\\s\\S]*?)\\n<!-- ${name}:end -->`).exec(doc)?.[1];
}
