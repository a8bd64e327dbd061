// `make docs`: writes the generated parts of docs/ from their declarations (after `make setup`,
// from dist/): the settings table and the personal columns of docs/interface.md and the error
// codes of docs/errors.md.
// Each part sits between `<!-- NAME:start -->` and `<!-- NAME:end -->`; the tests named in each
// document fail while a part is out of date.
import { readFileSync, writeFileSync } from 'node:fs';
import { settingsMarkdown } from '../dist/config/settings-docs.js';
import { errorCodesMarkdown } from '../dist/core/error-codes.js';
import { discoverProject } from '../dist/models/discover-project.js';
import { personalDataMarkdown } from '../dist/models/personal-data-docs.js';

const PARTS = [
  { file: 'docs/interface.md', name: 'settings', text: settingsMarkdown() },
  { file: 'docs/interface.md', name: 'personal-data', text: personalDataMarkdown((await discoverProject()).models) },
  { file: 'docs/errors.md', name: 'error-codes', text: errorCodesMarkdown() },
];

for (const { file, name, text } of PARTS) {
  const path = new URL(`../${file}`, import.meta.url);
  const doc = readFileSync(path, 'utf8');
  const pattern = new RegExp(`(<!-- ${name}:start -->\\n)[\\s\\S]*?(<!-- ${name}:end -->)`);
  if (!pattern.test(doc)) throw new Error(`${file} has no <!-- ${name}:start --> ... <!-- ${name}:end --> part`);
  const updated = doc.replace(pattern, (_, start, end) => `${start}${text}\n${end}`);
  if (updated !== doc) writeFileSync(path, updated);
  console.log(`${file} ${name}: ${updated === doc ? 'up to date' : 'written'}`);
}
