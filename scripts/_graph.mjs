import ts from 'typescript';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, dirname, resolve, relative } from 'node:path';
const root = resolve('src');
function* walk(d){ for (const f of readdirSync(d)){ const p=join(d,f); if(statSync(p).isDirectory()) yield* walk(p); else if(p.endsWith('.ts')) yield p; } }
const layer = (p)=> relative(root,p).split('/')[0];
const edges = {};
for (const f of walk(root)) {
  const info = ts.preProcessFile(readFileSync(f,'utf8'), true, true);
  for (const imp of info.importedFiles) {
    if (!imp.fileName.startsWith('.')) continue;
    const target = resolve(dirname(f), imp.fileName);
    const a=layer(f), b=layer(target);
    if (a!==b) { const k=`${a} -> ${b}`; (edges[k] ??= []).push(`${relative(root,f)} -> ${relative(root,target)}`); }
  }
}
for (const [k,v] of Object.entries(edges).sort()) console.log(k, v.length, process.argv[2] ? '\n   '+v.join('\n   ') : '');
