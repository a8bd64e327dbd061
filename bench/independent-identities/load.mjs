// Puts the independent identity set into a data dir the way an extraction does: each raw table
// through the extractor's own sink (declaration check, Parquet spool, manifest written last),
// one run for every table of both sources, so `fanlake load` and `fanlake build` take it as
// they take real data. Nothing here knows where raw files live or how the warehouse stores them.
import { ResourceSink } from '../../dist/extract/resource-sink.js';
import { KeptConversionDatabase } from '../../dist/extract/spool/index.js';
import { newRunId } from '../../dist/raw-contract/index.js';
import { ENGAGEMENT_TABLES } from '../../dist/sources/engagement/index.js';
import { TICKETING_RESOURCES } from '../../dist/sources/ticketing/resources.js';

/**
 * Writes `raw` (table name with its source prefix → items as the API sends them) as one
 * extraction run of every table; tables without items are written empty.
 * @param {string} dataDir
 * @param {Record<string, Record<string, unknown>[]>} raw
 */
export async function writeExtraction(dataDir, raw) {
  const duckdb = new KeptConversionDatabase();
  const runStartedAt = new Date();
  const run = { dataDir, runId: newRunId(runStartedAt), runStartedAt, duckdb };
  try {
    const tables = [
      ...TICKETING_RESOURCES.map((spec) => ({ source: 'ticketing', ...spec })),
      ...ENGAGEMENT_TABLES.map((spec) => ({ source: 'engagement', ...spec })),
    ];
    for (const spec of tables) {
      const sink = new ResourceSink(run, spec);
      const items = raw[`${spec.source}_${spec.name}`] ?? [];
      const accepted = await sink.accept(items);
      if (accepted !== items.length) throw new Error(`${spec.source}_${spec.name}: ${items.length - accepted} items did not pass the declaration`);
      await sink.commit({ snapshot: spec.source === 'engagement' });
    }
  } finally {
    await duckdb.close();
  }
}
