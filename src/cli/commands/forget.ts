import { join } from 'node:path';
import type { Argv } from 'yargs';
import { duckdbBudget } from '../../config/duckdb-budget.js';
import { withConnection } from '../../core/duckdb.js';
import { CODE } from '../../core/error-codes.js';
import { FanlakeError } from '../../core/errors.js';
import { buildStep } from '../../pipeline/steps/build.js';
import { describeErasure, loadWithErasure } from '../../pipeline/steps/load.js';
import { eraseFromRawLayer, eraseFromWarehouse, eraseRenderings, type ForgetPlan, planForget } from '../../privacy/forget.js';
import { addTombstones, appendErasureAudit } from '../../privacy/tombstones.js';
import { warehousePath } from '../../raw-contract/index.js';
import { compactWarehouse } from '../../warehouse/compact-warehouse.js';
import { withWarehouseReader } from '../../warehouse/warehouse.js';
import type { CommandModule } from '../command.js';
import { out, table } from '../output.js';
import { type PersonArgs, personQueryFrom, withPersonOptions } from '../person-options.js';

interface ForgetArgs extends PersonArgs {
  apply: boolean;
}

/** Where `report` renders (src/reports/render-reports.ts). */
const RENDERINGS_DIR = 'reports';

export const forgetCommand: CommandModule<ForgetArgs> = {
  command: 'forget',
  describe: 'Erase one person (a request to be forgotten): lists every record of theirs and why; with --apply removes them from raw runs, quarantine, the warehouse and renderings, and keeps them out of later loads',
  epilogue:
    'The person is found through identity resolution as the last build left it, and taken whole, as export-person finds them. ' +
    'Without --apply nothing changes (no writer lock). With --apply: takes the writer lock, loads pending raw runs first, records tombstones ' +
    '($FANLAKE_DATA_DIR/privacy: record keys and keyed hashes of the addresses and numbers, never in clear), rewrites every raw run that held ' +
    'them, deletes them from the raw tables and meta, rebuilds every model, writes the warehouse file afresh and deletes renderings that name them ' +
    '(run report again). An audit line goes to $FANLAKE_DATA_DIR/privacy/erasures.log. ' +
    'Exit status: 0 listed or erased, 1 nothing matches (or a step after the erasure failed), 2 bad usage or no built warehouse.',
  writes: (args) => args.apply === true,
  builder: (yargs: Argv) =>
    withPersonOptions(yargs)
      .example('$0 forget --email ola@example.no', 'what would go, and why')
      .example('$0 forget --email ola@example.no --apply', 'erase it everywhere')
      .option('apply', { type: 'boolean', default: false, describe: 'Erase; without it, only list' }) as unknown as Argv<ForgetArgs>,

  async run(args, { config }) {
    const query = personQueryFrom(args);
    const budget = duckdbBudget(config);
    const nobody = () => {
      out.error(`no fan matches --${query.by}: identity resolution links no record to it`);
      return 1 as const;
    };
    if (!args.apply) {
      const plan = await withWarehouseReader(config.dataDir, (connection) => planForget(connection, query), budget);
      if (plan === undefined) return nobody();
      printPlan(plan);
      out.info('nothing changed: forget --apply erases them');
      return 0;
    }

    // Records extracted but not loaded yet are erased like the rest: the load first, then the lookup.
    const { results, erasure } = await loadWithErasure(config);
    const failed = results.filter((result) => result.status === 'failed');
    if (failed.length > 0) {
      throw new FanlakeError(CODE.E_PRIVACY_ERASE, `the pending load failed (${failed.map((result) => result.table).join(', ')}): fix it with fanlake load, then forget again`);
    }
    for (const line of describeErasure(erasure)) out.warn(line);

    const erased = await withConnection(
      warehousePath(config.dataDir),
      async (connection) => {
        const plan = await planForget(connection, query);
        if (plan === undefined) return undefined;
        // Tombstones first: whatever happens after, no later load brings the person back.
        await addTombstones(config.dataDir, { records: plan.person.records.map((record) => record.recordKey), emails: plan.person.emails, phones: plan.phones });
        const raw = await eraseFromRawLayer(connection, config.dataDir, plan);
        const warehouse = await eraseFromWarehouse(connection, plan);
        return { plan, raw, warehouse };
      },
      budget,
    );
    if (erased === undefined) return nobody();
    const { plan, raw, warehouse } = erased;
    printPlan(plan);

    // Renderings before the rebuild: once the models are rebuilt, forget no longer finds the person to erase them again.
    const renderings = await eraseRenderings(join(config.dataDir, RENDERINGS_DIR), plan.needles);
    const build = await buildStep({ config }, { fullRefresh: true });
    const compacted = await compactWarehouse(config.dataDir, budget);
    await appendErasureAudit(config.dataDir, {
      at: new Date().toISOString(),
      kind: `forget --${query.by}`,
      records: plan.sourceRecords.length,
      detail: { fans: plan.person.fanIds.length, rawFiles: raw.files, rawRows: raw.rows, quarantineLines: raw.quarantined, warehouseRows: [...warehouse.values()].reduce((sum, n) => sum + n, 0), renderings: renderings.length },
    });

    out.result(
      table(
        ['where', 'erased'],
        [
          ['raw runs rewritten', raw.runs],
          ['raw rows', raw.rows],
          ['quarantine lines', raw.quarantined],
          ...[...warehouse].map(([relation, rows]): [string, number] => [relation, rows]),
          ['renderings deleted', renderings.length],
        ],
      ),
    );
    out.info(`warehouse written afresh (${compacted.before} → ${compacted.after} bytes); tombstones keep the person out of later loads`);
    if (renderings.length > 0) out.info('renderings that named them were deleted: run fanlake report to render them again');
    if (build.status !== 'ok') {
      out.error(`the rebuild of the models after the erasure ended ${build.status}${build.error ? `: ${build.error}` : ''}: run fanlake build --full-refresh`);
      return 1;
    }
    return 0;
  },
};

/** Every record found, and why it is the person's. */
function printPlan(plan: ForgetPlan): void {
  out.result(`fan ${plan.person.fanIds.join(', ')}: ${plan.person.records.length} linked records, ${plan.sourceRecords.length} source records, ${plan.quarantined} quarantined items`);
  out.result(table(['linked record', 'linked by'], plan.person.records.map((record) => [record.recordKey, record.matchRule])));
  out.result(
    table(
      ['table', 'key', 'why'],
      plan.sourceRecords.map((record) => [record.cameFrom.table, JSON.stringify(record.cameFrom.key), record.whose.join('; ')]),
    ),
  );
}
