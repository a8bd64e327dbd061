import type { DuckDBInstance } from '@duckdb/node-api';
import { access, appendFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CODE } from '../../core/error-codes.js';
import { queryRows, withConnection } from '../../core/duckdb.js';
import { FanlakeError } from '../../core/errors.js';
import { warehousePath } from '../../raw-contract/index.js';
import { CLUB_MAPPINGS, type ClubFile, type ClubMappingName, locateClubFile, readClubFiles } from './club-files.js';
import { csvDelimiter, csvHeaderLine, csvLineEnd, stringifyCsvRows } from './csv-table.js';
import { suggestConsent, suggestProductLine, suggestSalesChannel, suggestStatusGroup } from './suggest-meaning.js';

/** How the club's files stand on one code the data uses. */
export const CODE_STATES = ['mapped', 'suggested', 'unmapped', 'contradicting'] as const;
export type CodeState = (typeof CODE_STATES)[number];

/** One code or text the loaded data uses, as `marts.club_codes` lists it, judged against the club's files now. */
export interface CodeFinding {
  /** `consent`, `order_status`, `order_type` or `sales_channel`. */
  mapping: string;
  /** `ticketing`/`engagement` for consents, `tickets`/`merchandise` otherwise. */
  source: string;
  codeId: number | null;
  codeName: string | null;
  records: number;
  state: CodeState;
  /** What the club's files make of it, when mapped or suggested. */
  meaning?: string;
  /** The club file that must give it a meaning. */
  file: ClubMappingName;
}

export interface ClubDiagnosis {
  findings: CodeFinding[];
  files: ClubFile[];
  /** Codes that keep a figure from being right: unmapped, contradicting or only suggested. */
  open: CodeFinding[];
}

const FILE_OF: Record<string, ClubMappingName> = {
  consent: 'consent_meanings',
  order_status: 'order_status_groups',
  order_type: 'order_type_groups',
  sales_channel: 'sales_channels',
};

/**
 * Every code the loaded data uses (the codes `build` last listed in `marts.club_codes`), judged
 * against the club's files as they are now, so an edit shows before the next build.
 *
 * @throws FanlakeError `E_WAREHOUSE_MISSING` when nothing has been built yet.
 */
export async function diagnoseClub(options: { dataDir: string; clubDir: string | undefined; instance?: DuckDBInstance }): Promise<ClubDiagnosis> {
  const files = await readClubFiles(options.clubDir);
  const path = warehousePath(options.dataDir);
  const notBuilt = (cause?: unknown) =>
    new FanlakeError(CODE.E_WAREHOUSE_MISSING, `no codes to check: ${path} has no marts.club_codes yet; run fanlake run (or load and build) first`, { context: { path }, cause });
  await access(path).catch((cause: unknown) => {
    throw notBuilt(cause);
  });
  // the warehouse `run` shares, or the file, read-only
  const seen = await withConnection(
    options.instance ?? path,
    (connection) => queryRows(connection, `select mapping, source, code_id, code_name, records from marts.club_codes order by mapping, source, code_id, code_name`),
    { accessMode: 'READ_ONLY' },
  ).catch((cause: unknown) => {
    throw notBuilt(cause);
  });
  const findings = seen.map((row): CodeFinding => {
    const mapping = String(row.mapping);
    const source = String(row.source);
    const codeId = row.code_id === null ? null : Number(row.code_id);
    const codeName = row.code_name === null ? null : String(row.code_name);
    const file = FILE_OF[mapping]!;
    const rows = files.find((candidate) => candidate.name === file)!.rows;
    const judged = judge(mapping, source, codeId, codeName, rows);
    return { mapping, source, codeId, codeName, records: Number(row.records), file, ...judged };
  });
  return { findings, files, open: findings.filter((finding) => finding.state !== 'mapped') };
}

type FileRow = ClubFile['rows'][number];

function judge(mapping: string, source: string, codeId: number | null, codeName: string | null, rows: readonly FileRow[]): { state: CodeState; meaning?: string } {
  const idOf = (row: FileRow): unknown => row.consent_id ?? row.order_status_id ?? row.order_type_id;
  const nameOf = (row: FileRow): unknown => row.consent_name ?? row.order_status_name ?? row.order_type_name ?? row.channel;
  const scoped = rows.filter((row) => (mapping === 'consent' ? row.system === source : mapping === 'sales_channel' ? row.resource === source : true));
  const same = scoped.filter((row) => (mapping === 'sales_channel' || idOf(row) === codeId) && nameOf(row) === codeName);
  const meaningOf = (matched: readonly FileRow[]) =>
    matched.map((row) => String(row.status_group ?? row.product_line ?? (mapping === 'consent' ? `${String(row.purpose) || '?'} ${String(row.channel ?? 'none')}` : `${String(row.display_name)}${row.is_app ? ' (app)' : ''}`))).join(', ');
  const confirmed = same.filter((row) => row.confirmed);
  if (confirmed.length > 0) return { state: 'mapped', meaning: meaningOf(confirmed) };
  if (same.length > 0) return { state: 'suggested', meaning: meaningOf(same) };
  const knownId = mapping !== 'sales_channel' && codeName !== null && scoped.some((row) => row.confirmed && idOf(row) === codeId);
  return { state: knownId ? 'contradicting' : 'unmapped' };
}

/** The CSV lines `--write` adds for one code, in its file's column order, marked unconfirmed. */
function suggestionLines(finding: CodeFinding): string[][] {
  const name = finding.codeName ?? '';
  switch (finding.mapping) {
    case 'consent': {
      const { purpose, channels } = suggestConsent(name);
      return (channels.length > 0 ? channels : ['']).map((channel) => [finding.source, String(finding.codeId), name, purpose, channel, name, 'no']);
    }
    case 'order_status':
      return [[String(finding.codeId), name, suggestStatusGroup(name), 'no']];
    case 'order_type':
      return [[String(finding.codeId), name, suggestProductLine(name), 'no']];
    default: {
      const { display, app } = suggestSalesChannel(name);
      // a display name may not be empty, even for a channel the API sends as empty text
      return [[finding.source, name, display || '(empty)', app ? 'yes' : 'no', 'no']];
    }
  }
}

/**
 * Adds a suggestion for every unmapped or contradicting code to the club's files, marked
 * `confirmed` = no: appended, never changing a row the club wrote (a file the club does not
 * have yet starts as a copy of the default, so the defaults it relied on stay). A code that
 * already has a suggestion gets none more. Returns the rows added per file.
 */
export async function writeSuggestions(clubDir: string, diagnosis: ClubDiagnosis): Promise<Map<ClubMappingName, number>> {
  const added = new Map<ClubMappingName, number>();
  await mkdir(clubDir, { recursive: true });
  for (const spec of CLUB_MAPPINGS) {
    // one line per key: tickets and merchandise share their order statuses
    const lines = [
      ...new Map(
        diagnosis.findings
          .filter((finding) => finding.file === spec.name && (finding.state === 'unmapped' || finding.state === 'contradicting') && finding.codeName !== null)
          .flatMap(suggestionLines)
          .map((fields) => [JSON.stringify(fields), fields] as const),
      ).values(),
    ];
    if (lines.length === 0) continue;
    const path = join(clubDir, `${spec.name}.csv`);
    const current = await locateClubFile(spec.name, clubDir);
    let text = current.text;
    if (current.fromDefaults) await writeFile(path, text);
    // Lines go in as the file has them (a spreadsheet's `;` and CRLF), so it stays one table.
    const delimiter = csvDelimiter(text, spec);
    const lineEnd = csvLineEnd(text);
    // The marker column goes at the end of the header; rows written before it lack it, which reads as yes.
    const header = csvHeaderLine(text);
    const headerColumns = header === undefined ? [] : header.split(delimiter).map((column) => column.trim());
    if (!headerColumns.includes('confirmed')) {
      const missing = spec.columns.slice(headerColumns.length);
      const full = [...headerColumns, ...missing].join(delimiter);
      text = header === undefined ? `${text}${text === '' || text.endsWith('\n') ? '' : lineEnd}${full}${lineEnd}` : text.replace(header, full);
      await writeFile(path, text);
    }
    const body = stringifyCsvRows(lines.map((fields) => fields.slice(0, spec.columns.length)), delimiter, lineEnd);
    await appendFile(path, `${text.endsWith('\n') || text === '' ? '' : lineEnd}${body}`);
    added.set(spec.name, lines.length);
  }
  return added;
}

/** The one-line verdict `doctor` ends with and `run` prints after `check`. */
export function doctorVerdict(diagnosis: ClubDiagnosis): string {
  if (diagnosis.open.length === 0) return `doctor: every code in the data is mapped (${diagnosis.findings.length} codes)`;
  const byMapping = new Map<string, number>();
  for (const finding of diagnosis.open) byMapping.set(finding.mapping, (byMapping.get(finding.mapping) ?? 0) + 1);
  const counts = [...byMapping].map(([mapping, count]) => `${mapping} ${count}`).join(', ');
  const states = (['unmapped', 'contradicting', 'suggested'] as const)
    .map((state) => [state, diagnosis.open.filter((finding) => finding.state === state).length] as const)
    .filter(([, count]) => count > 0)
    .map(([state, count]) => `${count} ${state}`)
    .join(', ');
  const next = diagnosis.open.every((finding) => finding.state === 'suggested')
    ? "review the suggestions in the club's files and set confirmed to yes"
    : 'fanlake doctor lists them, fanlake doctor --write adds suggestions to confirm';
  return `doctor: ${diagnosis.open.length} of ${diagnosis.findings.length} codes need the club's meaning (${counts}; ${states}): ${next}`;
}
