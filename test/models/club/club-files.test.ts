import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLUB_FILES, DEFAULT_CLUB_FILES_DIR, readClubFiles } from '../../../src/models/club/club-files.js';
import { runCli } from '../../helpers/cli.js';
import { sharedWarehouse } from '../../helpers/shared-warehouse.js';
import { runCliOk } from '../../warehouse/identity-fixture.js';

/**
 * The club's own files (club/club-files.ts) through the real CLI: the first build creates the
 * club folder from the defaults and says so, a malformed file exits 2 naming file and line
 * before anything is built, and an edited consent meaning rebuilds the consent models and
 * nothing unrelated.
 */
let dataDir: string;
let clubDir: string;
let env: Record<string, string>;
let firstBuild: string;

beforeAll(async () => {
  // The default test simulator's warehouse (shared with other files), built with the default club files.
  dataDir = await sharedWarehouse({ simulator: { scale: 0.02, seed: 42 } });
  clubDir = join(mkdtempSync(join(tmpdir(), 'fanlake-club-home-')), 'club');
  env = { FANLAKE_DATA_DIR: dataDir, FANLAKE_CLUB_DIR: clubDir };
  const result = await runCli(['build'], env);
  expect(result.code, result.stderr).toBe(0);
  firstBuild = result.stderr + result.stdout;
}, 180_000);

function buildStatuses(stdout: string): Map<string, string> {
  const document = JSON.parse(stdout) as { steps: { results: { name: string; status: string }[] }[] };
  return new Map(document.steps[0]!.results.map((result) => [result.name, result.status]));
}

describe('the club folder', () => {
  it('is created on first use with the default mappings, and the build says so', () => {
    expect(firstBuild).toContain(`created the club folder ${clubDir}`);
    expect(readdirSync(clubDir).sort()).toEqual(CLUB_FILES.map((spec) => `${spec.name}.csv`).sort());
    for (const spec of CLUB_FILES) {
      expect(readFileSync(join(clubDir, `${spec.name}.csv`), 'utf8')).toBe(readFileSync(join(DEFAULT_CLUB_FILES_DIR, `${spec.name}.csv`), 'utf8'));
    }
  });

  it('an edited consent meaning rebuilds the consent models and nothing unrelated', async () => {
    const path = join(clubDir, 'consent_meanings.csv');
    const before = readFileSync(path, 'utf8');
    expect(before).toContain('ticketing,3,Push notifications,club_marketing,push,');
    writeFileSync(path, before.replace('ticketing,3,Push notifications,club_marketing,push,', 'ticketing,3,Push notifications,club_marketing,sms,'));
    try {
      const statuses = buildStatuses(await runCliOk(['build', '--format', 'json'], env));
      const built = [...statuses].filter(([, status]) => status === 'ok').map(([name]) => name);
      for (const model of ['intermediate.int_club_consent_meanings', 'intermediate.int_ticketing_consent_events', 'intermediate.int_fan_consents', 'marts.consent_coverage', 'marts.club_codes']) {
        expect(built, model).toContain(model);
      }
      for (const model of ['marts.fct_tickets', 'intermediate.int_ticket_kinds', 'marts.revenue_monthly', 'marts.match_summary', 'intermediate.int_identity_clusters', 'marts.fct_merchandise_lines']) {
        expect(statuses.get(model), model).toBe('unchanged');
      }
      // engagement consents do not read ticketing meanings' rows, but they read the same file
      const [push] = JSON.parse(await runCliOk(['sql', "select count(*) as n from marts.consent_coverage where purpose = 'club_marketing' and channel = 'push' and consented_fans_ticketing > 0", '--format', 'json'], env)) as { n: number }[];
      expect(Number(push!.n)).toBe(0);
    } finally {
      writeFileSync(path, before);
    }
  }, 120_000);

  it.each([
    { file: 'order_status_groups.csv', text: 'order_status_id,order_status_name,status_group\n1,Completed,paid\n2,Cancelled,canceled\n', problem: ':3: status_group must be one of paid, cancelled, refunded, pending, other' },
    { file: 'order_type_groups.csv', text: 'order_type_id,order_type_name,product_line\n6,Ticket,ticket\n6,Ticket,ticket\n', problem: ':3: order_type_id, order_type_name repeat line 2' },
    { file: 'sales_channels.csv', text: 'resource,channel,display_name\nweb,Web,Online\n', problem: ':1: the header must be resource,channel,display_name,is_app' },
    { file: 'consent_meanings.csv', text: 'system,consent_id,consent_name,purpose,channel\nticketing,x1,Newsletter,club_marketing,email\n', problem: ':2: consent_id must be a whole number' },
    { file: 'consent_meanings.csv', text: 'system,consent_id,consent_name,purpose,channel\nticketing,1,"Newsletter,club_marketing,email\n', problem: ':2: a quoted field is not closed' },
    // the club's own word for its marketing belongs in display_names.csv: as a purpose, dim_fan's consent flags would be empty
    { file: 'consent_meanings.csv', text: 'system,consent_id,consent_name,purpose,channel\nticketing,1,Newsletter,nyheter,email\n', problem: ':2: purpose must be one of club_marketing, partner_marketing, profiling, transactional, other' },
  ])('a malformed $file exits 2 naming file and line before anything is built', async ({ file, text, problem }) => {
    const path = join(clubDir, file);
    const before = readFileSync(path, 'utf8');
    writeFileSync(path, text);
    try {
      const result = await runCli(['build'], env);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`${path}${problem}`);
      expect(result.stdout).toBe('');
    } finally {
      writeFileSync(path, before);
    }
  });

  it('a file the club lacks falls back to the default, which applies only where id and name match', async () => {
    const files = await readClubFiles(mkdtempSync(join(tmpdir(), 'fanlake-club-empty-')));
    expect(files.every((file) => file.fromDefaults)).toBe(true);
    expect(existsSync(join(DEFAULT_CLUB_FILES_DIR, 'consent_meanings.csv'))).toBe(true);
  });
});

describe('fanlake doctor', () => {
  it('lists what the mapping lacks, writes suggestions only when asked, and passes once they are confirmed', async () => {
    const own = join(mkdtempSync(join(tmpdir(), 'fanlake-club-doctor-')), 'club');
    const doctorEnv = { ...env, FANLAKE_CLUB_DIR: own };
    const { mkdirSync } = await import('node:fs');
    mkdirSync(own);
    // a club whose statuses and consents our defaults do not know by these names
    writeFileSync(join(own, 'order_status_groups.csv'), 'order_status_id,order_status_name,status_group\n1,Completed,paid\n');
    writeFileSync(join(own, 'consent_meanings.csv'), 'system,consent_id,consent_name,purpose,channel\nticketing,2,Tekstmelding,club_marketing,sms\n');
    const before = { statuses: readFileSync(join(own, 'order_status_groups.csv'), 'utf8') };

    const listed = await runCli(['doctor', '--format', 'json'], doctorEnv);
    expect(listed.code).toBe(1);
    const findings = (JSON.parse(listed.stdout) as { findings: { mapping: string; codeId: number; codeName: string; state: string; records: number }[] }).findings;
    expect(findings).toEqual(expect.arrayContaining([
      expect.objectContaining({ mapping: 'order_status', codeId: 3, codeName: 'Refunded', state: 'unmapped' }),
      expect.objectContaining({ mapping: 'consent', codeId: 2, codeName: 'SMS', state: 'contradicting' }),
      expect.objectContaining({ mapping: 'sales_channel', codeName: 'app', state: 'mapped' }),
    ]));
    expect(findings.every((finding) => finding.records > 0)).toBe(true);
    // without --write nothing is written
    expect(readFileSync(join(own, 'order_status_groups.csv'), 'utf8')).toBe(before.statuses);

    const written = await runCli(['doctor', '--write'], doctorEnv);
    expect(written.code, written.stderr).toBe(1);
    expect(written.stdout).toMatch(/suggested\): review the suggestions/);
    const statuses = readFileSync(join(own, 'order_status_groups.csv'), 'utf8');
    // the club's own rows stay as they were; suggestions follow, unconfirmed
    expect(statuses.startsWith('order_status_id,order_status_name,status_group,confirmed\n1,Completed,paid\n')).toBe(true);
    expect(statuses).toContain('3,Refunded,refunded,no');
    expect(statuses).toContain('2,Cancelled,cancelled,no');
    expect(readFileSync(join(own, 'consent_meanings.csv'), 'utf8')).toContain('ticketing,2,SMS,club_marketing,sms,SMS,no');

    for (const name of ['order_status_groups.csv', 'consent_meanings.csv']) {
      writeFileSync(join(own, name), readFileSync(join(own, name), 'utf8').replace(/,no$/gm, ',yes'));
    }
    const confirmed = await runCli(['doctor'], doctorEnv);
    expect(confirmed.stdout).toMatch(/doctor: every code in the data is mapped/);
    expect(confirmed.code, confirmed.stdout).toBe(0);
  }, 60_000);
});
