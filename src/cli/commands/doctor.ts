import type { Argv } from 'yargs';
import { diagnoseClub, doctorVerdict, writeSuggestions } from '../../models/club/club-doctor.js';
import { CLUB_MAPPINGS } from '../../models/club/club-files.js';
import { existsSync } from 'node:fs';
import { identityStateLines } from '../../models/identity-model/state-report.js';
import { warehousePath } from '../../raw-contract/index.js';
import { withWarehouseReader } from '../../warehouse/warehouse.js';
import { duckdbBudget } from '../../config/duckdb-budget.js';
import { looseAreas } from '../../privacy/file-modes.js';
import type { CommandModule } from '../command.js';
import { out, table } from '../output.js';

interface DoctorArgs {
  write: boolean;
  format: 'table' | 'json';
}

export const doctorCommand: CommandModule<DoctorArgs> = {
  command: 'doctor',
  describe: "Check that the club's mappings give every code in the loaded data a meaning: consents, order statuses and types, sales channels; warn about files others can read",
  epilogue:
    'It also warns, one line per area (data dir, warehouse, raw files, quarantine, journal, reports, club folder), when group or others can read what fanlake wrote, ' +
    'with the chmod command that fixes it; that alone does not change the exit status. Exit status: 0 every code is mapped, 1 one is not, 2 bad usage.',
  builder: (yargs: Argv) =>
    yargs
      .option('write', {
        type: 'boolean',
        default: false,
        describe: "Add each unmapped or contradicting code to the club's files as a suggestion (confirmed = no) to review; never changes a row already there",
      })
      .option('format', { choices: ['table', 'json'] as const, default: 'table' as const, describe: 'Output format' }) as unknown as Argv<DoctorArgs>,

  async run(args, { config }) {
    const clubDir = config['club.dir'];
    // Before the diagnosis, which needs a warehouse: a data dir without one can still be too open.
    const loose = await looseAreas(config.dataDir, clubDir);
    for (const area of loose) out.warn(`${area.area}: ${area.entries} file${area.entries === 1 ? '' : 's'} or folder${area.entries === 1 ? '' : 's'} readable by others than their owner (${area.path}); fix: ${area.fix}`);
    let diagnosis = await diagnoseClub({ dataDir: config.dataDir, clubDir });
    const added = args.write && clubDir ? await writeSuggestions(clubDir, diagnosis) : new Map<string, number>();
    if (added.size > 0) diagnosis = await diagnoseClub({ dataDir: config.dataDir, clubDir });

    if (args.format === 'json') {
      const identity = existsSync(warehousePath(config.dataDir)) ? await withWarehouseReader(config.dataDir, identityStateLines, duckdbBudget(config)) : [];
      out.result(JSON.stringify({ clubDir, identity, files: diagnosis.files.map((file) => ({ name: file.name, path: file.path, fromDefaults: file.fromDefaults })), findings: diagnosis.findings, written: Object.fromEntries(added), open: diagnosis.open.length, looseFiles: loose }, null, 2));
      return diagnosis.open.length > 0 ? 1 : 0;
    }
    for (const file of diagnosis.files.filter((candidate) => CLUB_MAPPINGS.some((spec) => spec.name === candidate.name))) {
      const findings = diagnosis.findings.filter((finding) => finding.file === file.name);
      out.result(`\n${file.name}: ${file.fromDefaults ? `the default (${file.path}); the club has no file of its own` : file.path}`);
      out.result(
        findings.length === 0
          ? 'no codes of this kind in the data'
          : table(['source', 'id', 'name or text', 'records', 'state', 'meaning'], findings.map((f) => [f.source, f.codeId ?? '', f.codeName ?? '(none)', f.records, f.state, f.meaning ?? ''])),
      );
    }
    for (const [file, rows] of added) out.result(`\nadded ${rows} suggestion${rows === 1 ? '' : 's'} to ${clubDir}/${file}.csv: check each, correct it where it is wrong, and set confirmed to yes`);
    const identity = existsSync(warehousePath(config.dataDir)) ? await withWarehouseReader(config.dataDir, identityStateLines, duckdbBudget(config)) : [];
    if (identity.length > 0) out.result(`\n${identity.join('\n')}`);
    out.result(`\n${doctorVerdict(diagnosis)}`);
    if (diagnosis.open.some((finding) => finding.state === 'contradicting')) {
      out.result('contradicting: the mapping knows the id under another name or text, so it may mean something else at this club; map the pair as it is in the data');
    }
    return diagnosis.open.length > 0 ? 1 : 0;
  },
};
