// Which noise kinds identity resolution misses: for each kind, the record pairs of one person
// where a record carries that kind, and the share of them put in one fan.
// Usage: node bench/identity-kinds.mjs [scale] [seed]        the noisy simulator
//        node bench/identity-kinds.mjs independent [persons] [seed]   the independent set
import { scoreIndependent, scoreRun, shortFormFigures, twinFigures } from './identity.mjs';

const independent = process.argv[2] === 'independent';
const [scale = independent ? '2000' : '0.1', seed = independent ? '3' : '11'] = process.argv.slice(independent ? 3 : 2);
const { links, truth, score, evidenceRecall, ceilingRecall, shortForms, twins } = independent ? await scoreIndependent(Number(scale), Number(seed)) : await scoreRun(Number(scale), Number(seed), true);
console.log(`precision ${score.precision.toFixed(4)}, recall ${score.recall.toFixed(4)} (${score.truePairs} true pairs, ${score.predictedPairs} predicted; recall where more than a name is shared ${evidenceRecall.toFixed(4)}; the most recall without a false link ${ceilingRecall.toFixed(4)})`);
const fanOf = new Map(links.map((link) => [`${link.system}:${link.recordId}`, link.fanId]));
const byPerson = new Map();
for (const record of truth) {
  const list = byPerson.get(record.personId) ?? [];
  list.push(record);
  byPerson.set(record.personId, list);
}
const counts = new Map();
for (const records of byPerson.values()) {
  for (let i = 0; i < records.length; i++) {
    for (let j = i + 1; j < records.length; j++) {
      const together = fanOf.get(`${records[i].system}:${records[i].recordId}`) === fanOf.get(`${records[j].system}:${records[j].recordId}`);
      const kinds = new Set([...(records[i].noise ?? []), ...(records[j].noise ?? [])]);
      for (const kind of kinds.size ? kinds : ['(none)']) {
        const count = counts.get(kind) ?? { pairs: 0, together: 0 };
        count.pairs++;
        if (together) count.together++;
        counts.set(kind, count);
      }
    }
  }
}
for (const [kind, { pairs, together }] of [...counts].sort()) console.log(`${kind.padEnd(18)} ${String(pairs).padStart(7)} pairs  recall ${(together / pairs).toFixed(4)}`);
console.log(`${shortFormFigures(shortForms)}; ${twinFigures(twins)}`);
