import { chmod, writeFile } from 'node:fs/promises';
import type { Argv } from 'yargs';
import { duckdbBudget } from '../../config/duckdb-budget.js';
import { exportPerson } from '../../privacy/export-person.js';
import { withWarehouseReader } from '../../warehouse/warehouse.js';
import type { CommandModule } from '../command.js';
import { out } from '../output.js';
import { type PersonArgs, personQueryFrom, withPersonOptions } from '../person-options.js';

interface ExportPersonArgs extends PersonArgs {
  out?: string;
}

/** Readable and writable by its owner alone: the document is one person's data. */
const OWNER_ONLY = 0o600;

export const exportPersonCommand: CommandModule<ExportPersonArgs> = {
  command: 'export-person',
  describe: 'Everything the warehouse holds about one person, as one JSON document (an access request): found by e-mail, phone, record key or fan id',
  epilogue:
    'The person is found through identity resolution as the last build left it, and taken whole: every record of every fan the identifier names. ' +
    'Reads the warehouse like sql (no writer lock). Exit status: 0 the document was written, 1 nothing matches, 2 bad usage or no built warehouse.',
  builder: (yargs: Argv) =>
    withPersonOptions(yargs)
      .example('$0 export-person --email ola@example.no --out ola.json', 'the document in a file only you can read')
      .example('$0 export-person --record ticketing_user:10001', 'by a source record, as identity explain names it')
      .example('$0 export-person --phone "+47 900 12 345"', 'by phone number, written any way')
      .option('out', { type: 'string', describe: 'Write the document to FILE (created readable by you alone) instead of stdout' }) as unknown as Argv<ExportPersonArgs>,

  async run(args, { config }) {
    const { by, value } = personQueryFrom(args);
    const document = await withWarehouseReader(config.dataDir, (connection) => exportPerson(connection, { by, value }), duckdbBudget(config));
    if (document === undefined) {
      out.error(`no fan matches --${by}: identity resolution links no record to it`);
      return 1;
    }
    const text = `${JSON.stringify(document, null, 2)}\n`;
    if (args.out === undefined) {
      out.result(text.trimEnd());
      return 0;
    }
    await writeFile(args.out, text, { mode: OWNER_ONLY });
    // `mode` applies only to a file created here; one that was there keeps its mode until this.
    await chmod(args.out, OWNER_ONLY);
    out.info(`wrote ${args.out}: ${document.sourceRecords.length} source records of ${document.fanIds.length} fan${document.fanIds.length === 1 ? '' : 's'}`);
    return 0;
  },
};
