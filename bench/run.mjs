// `make bench`: every benchmark, printed as one table of figures and ratios from this run.
// Usage: node bench/run.mjs [--scale N] [--only extraction,engagement,memory,warehouse,identity,identity-pairs,quiet-hour,season,febrl] [--identity-scale10] [--pair-scales 10,20,40] [--season-days 7] [--season-scale 0.1]
// (default scale 10; --identity-scale10 adds the noisy simulator at scale 10 to the identity figures;
// identity-pairs counts the identity model's candidate pairs per record at each of --pair-scales;
// season runs --season-days simulated days hourly at --season-scale, bench/season.mjs; febrl needs
// --dir <folder of the Febrl 4 files>, bench/febrl.mjs, and says it was skipped without)
import { benchEngagement } from './engagement.mjs';
import { benchExtraction } from './extraction.mjs';
import { benchFebrl } from './febrl.mjs';
import { benchIdentity } from './identity.mjs';
import { benchIdentityPairs } from './identity-pairs.mjs';
import { flag } from './lib.mjs';
import { benchMemory } from './memory.mjs';
import { benchQuietHour } from './quiet-hour.mjs';
import { benchSeason } from './season.mjs';
import { benchWarehouse } from './warehouse.mjs';

const BENCHES = {
  extraction: benchExtraction,
  engagement: benchEngagement,
  memory: benchMemory,
  warehouse: benchWarehouse,
  identity: benchIdentity,
  'identity-pairs': () => benchIdentityPairs(),
  'quiet-hour': benchQuietHour,
  season: benchSeason,
  // skipped, with a row saying so, unless --dir names the folder of the Febrl 4 files
  febrl: () => benchFebrl(),
};

const scale = Number(flag('--scale') ?? 10);
const only = flag('--only')?.split(',');
const rows = [];
for (const [name, bench] of Object.entries(BENCHES)) {
  if (!only || only.includes(name)) rows.push(...(await bench({ scale })));
}

const widths = [0, 1, 2, 3].map((c) => Math.max(...rows.map((r) => String(r[c]).length)));
for (const row of rows) console.log(row.map((cell, c) => String(cell).padEnd(widths[c])).join('  ').trimEnd());
