import type { Argv } from 'yargs';
import { warehousePath as pathOf } from '../../raw-contract/index.js';
import { describeErasure, describeWarning, loadWithErasure, summarizeLoad } from '../../pipeline/steps/load.js';
import { stepExitCode } from '../../pipeline/steps/step.js';
import type { CommandModule } from '../command.js';
import { out, table } from '../output.js';
import { type StageFormat, stageDocument, withStageFormat } from '../stage-format.js';

export const loadCommand: CommandModule<{ format?: StageFormat }> = {
  command: 'load',
  describe: 'Merge raw Parquet runs not loaded yet into the warehouse ($FANLAKE_DATA_DIR/warehouse.duckdb), in one transaction',
  writes: true,
  builder: (yargs: Argv) => withStageFormat(yargs),

  async run(args, { config }) {
    const startedAt = new Date();
    const warehousePath = pathOf(config.dataDir);
    const { results, erasure } = await loadWithErasure(config);
    const summary = summarizeLoad(results, erasure);
    if (args.format === 'json') {
      out.result(JSON.stringify(stageDocument('load', startedAt, summary), null, 2));
      return stepExitCode(summary);
    }
    for (const r of results) for (const warning of r.warnings ?? []) out.warn(describeWarning(warning));
    for (const line of describeErasure(erasure)) out.warn(line);
    if (results.every((r) => r.status === 'skipped')) {
      out.info('nothing new to load');
      return 0;
    }
    out.result(
      table(
        ['table', 'status', 'runs', 'rows in', 'inserted', 'updated', 'vanished'],
        results.map((r) => [r.table, r.status, r.runs.length, r.rowsIn, r.inserted, r.updated, r.vanished ?? 0]),
      ),
    );
    for (const r of results) {
      for (const drift of r.drift) out.warn(`${r.table}: ${drift}`);
      if (r.error) out.error(`${r.table}: ${r.error.message}`);
    }
    out.info(`warehouse ${warehousePath}`);
    return stepExitCode(summary);
  },
};
