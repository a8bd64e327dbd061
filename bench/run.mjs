// `make bench`: every benchmark, printed as one table of figures and ratios from this run.
// Usage: node bench/run.mjs [--scale N]   (default 10)
import { benchExtraction } from './extraction.mjs';

const scaleFlag = process.argv.indexOf('--scale');
const scale = scaleFlag > 0 ? Number(process.argv[scaleFlag + 1]) : 10;

const rows = [];
for (const bench of [benchExtraction]) rows.push(...(await bench({ scale })));

const widths = [0, 1, 2, 3].map((c) => Math.max(...rows.map((r) => String(r[c]).length)));
for (const row of rows) console.log(row.map((cell, c) => String(cell).padEnd(widths[c])).join('  ').trimEnd());
