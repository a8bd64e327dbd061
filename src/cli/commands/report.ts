import { resolve } from 'node:path';
import type { Argv } from 'yargs';
import { INDEX_FILE, loadReportCatalog, parseParamArgs, renderReports } from '../../reports/index.js';
import type { CheckedReport } from '../../reports/index.js';
import { IN_MEMORY, withConnection } from '../../core/duckdb.js';
import type { CommandModule } from '../command.js';
import { renderOptionsFrom } from '../../pipeline/steps/report.js';
import { out, table } from '../output.js';

interface ReportArgs {
  names: string[];
  param: string[];
  out?: string;
  list: boolean;
}

export const reportCommand: CommandModule<ReportArgs> = {
  command: 'report [names..]',
  describe: 'Render reports from reports/ into self-contained pages, data files and a digest',
  writes: true,
  builder: (yargs: Argv) =>
    yargs
      .example('$0 report', 'every report, into $FANLAKE_DATA_DIR/reports/')
      .example('$0 report match-day --param season=2025', 'one report for another season')
      .example('$0 report --list', 'the reports and their parameters')
      .positional('names', { type: 'string', array: true, describe: 'Reports to render (file names in reports/ without .md); all when none' })
      .option('param', { type: 'string', array: true, default: [], describe: 'name=value for a parameter the report declares (repeatable)' })
      .option('out', { type: 'string', describe: 'Folder for the renderings (default $FANLAKE_DATA_DIR/reports)' })
      .option('list', { type: 'boolean', default: false, describe: 'List the reports and their parameters; render nothing' }) as unknown as Argv<ReportArgs>,

  async run(args, { config }) {
    const options = renderOptionsFrom(config);
    if (args.list) {
      const catalog = await withConnection(IN_MEMORY, (scratch) => loadReportCatalog(scratch, options.reportsDir));
      out.result(listReports(catalog.reports));
      return 0;
    }
    const outDir = resolve(args.out ?? `${config.dataDir}/reports`);
    const results = await renderReports({ ...options, names: args.names ?? [], params: parseParamArgs(args.param ?? []), outDir });
    for (const result of results) {
      if (result.status === 'ok') out.result(`ok      ${result.name}  ${result.dir}/index.html`);
      else out.error(`failed  ${result.name}: ${result.error?.message ?? 'unknown error'}`);
    }
    out.info(`index: ${resolve(outDir, INDEX_FILE)}`);
    return results.some((result) => result.status === 'failed') ? 1 : 0;
  },
};

function listReports(reports: readonly CheckedReport[]): string {
  if (reports.length === 0) return '(no reports)';
  const rows = reports.flatMap((report) => {
    const params = report.meta.params.length === 0 ? [['', '(no parameters)', '', '']] : report.meta.params.map((param) => [
      '',
      `--param ${param.name}=<${param.type}>`,
      param.default !== undefined ? String(param.default) : param.defaultQuery ? `from query ${param.defaultQuery}` : '(none)',
      param.description ?? '',
    ]);
    return [[report.name, report.meta.title, '', report.meta.personalData ? 'shows personal data' : (report.meta.description ?? '')], ...params];
  });
  return table(['report', 'title / parameter', 'default', 'description'], rows);
}
