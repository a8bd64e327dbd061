import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readClubFiles } from '../../../src/models/club/club-files.js';
import { csvField } from '../../../src/models/club/csv-table.js';
import type { Simulator } from '../../../src/simulator/simulator.js';
import type { Item } from '../../../src/simulator/store/cursor-resource.js';
import { runCli } from '../../helpers/cli.js';
import { sharedWarehouse } from '../../helpers/shared-warehouse.js';
import { startTestSimulator } from '../../helpers/simulator.js';
import { queryWarehouse } from '../../helpers/warehouse.js';
import { cliEnv, runCliOk } from '../../warehouse/identity-fixture.js';

/**
 * A consent text as an API may send it, with a line break, quotes and spaces at its ends, goes
 * through the club's whole round: `doctor --write` suggests it, the club confirms it in the file,
 * and `build`, `check` and `doctor` pass with the consent counted on the channel the club gave it.
 * Served as ticketing user permissions the test adds to the simulator (its verbatim admin route).
 */
const CONSENT_ID = 77;
const TEXT = ' Ja, send meg "kampvarsler" fra partnere\npå push i appen ';
const USERS = 5;

let sim: Simulator;
let env: Record<string, string>;
let clubDir: string;
let userIds: string[];

beforeAll(async () => {
  const dataDir = await sharedWarehouse({ simulator: { scale: 0.02, seed: 42 } });
  sim = await startTestSimulator({ scale: 0.02, seed: 42 });
  clubDir = join(mkdtempSync(join(tmpdir(), 'fanlake-club-text-')), 'club');
  env = { ...cliEnv(sim, dataDir), FANLAKE_CLUB_DIR: clubDir };
  const template = sim.ticketingRecords('user_permissions').next().value as Item;
  userIds = [...sim.ticketingRecords('users')].slice(0, USERS).map((user) => String(user.id));
  // A minute back: the extractor's date_end is whole seconds, so "now" may fall after it.
  const at = sim.clock.now() - 60_000;
  sim.addTicketingVerbatim(
    'user_permissions',
    userIds.map((id) => ({ ...template, id_user: id, id_consent_basic: CONSENT_ID, name: TEXT, consent_description: TEXT, decision: true, last_update: new Date(at).toISOString() })),
    at,
  );
  await runCliOk(['extract', '--source', 'ticketing', '--resource', 'user_permissions', '--full-refresh'], env);
  await runCliOk(['load'], env);
  await runCliOk(['build'], env);
}, 300_000);

afterAll(async () => {
  await sim?.close();
});

describe('a consent text with a line break, quotes and spaces at its ends', () => {
  it('is suggested by doctor --write, confirmed by the club, and then counted on its channel', async () => {
    const listed = await runCli(['doctor', '--write'], env);
    expect(listed.code, listed.stdout + listed.stderr).toBe(1);
    const path = join(clubDir, 'consent_meanings.csv');
    const written = readFileSync(path, 'utf8');
    const quoted = csvField(TEXT);
    expect(written).toContain(`ticketing,${CONSENT_ID},${quoted},`);
    const suggested = (await readClubFiles(clubDir)).find((file) => file.name === 'consent_meanings')!.rows.filter((row) => row.consent_id === CONSENT_ID);
    expect(suggested.map((row) => [row.consent_name, row.confirmed])).toEqual(suggested.map(() => [TEXT, false]));

    // The club, in its editor: one suggestion kept with the purpose and channel it means, confirmed.
    const suggestion = new RegExp(`^ticketing,${CONSENT_ID},${escape(quoted)},[a-z_]*,[a-z]*,${escape(quoted)},no\\n`, 'gm');
    expect(written.match(suggestion)).toHaveLength(suggested.length);
    writeFileSync(path, `${written.replace(suggestion, '')}ticketing,${CONSENT_ID},${quoted},partner_marketing,push,${quoted},yes\n`);

    await runCliOk(['build'], env);
    await runCliOk(['check'], env);
    expect(await runCliOk(['doctor'], env)).toMatch(/doctor: every code in the data is mapped/);

    const meanings = await queryWarehouse(env.FANLAKE_DATA_DIR!, `select consent_name from intermediate.int_club_consent_meanings where consent_id = ${CONSENT_ID}`);
    expect(meanings.map((row) => row.consent_name)).toEqual([TEXT]);
    const [code] = await queryWarehouse(env.FANLAKE_DATA_DIR!, `select code_name, state, records from marts.club_codes where mapping = 'consent' and code_id = ${CONSENT_ID}`);
    expect(code).toEqual({ code_name: TEXT, state: 'mapped', records: String(USERS) });
    const [fans] = await queryWarehouse(
      env.FANLAKE_DATA_DIR!,
      `select count(distinct fan_id) as n from intermediate.int_identity_clusters where system = 'ticketing_user' and record_id in (${userIds.map((id) => `'${id}'`).join(', ')})`,
    );
    const [coverage] = await queryWarehouse(env.FANLAKE_DATA_DIR!, `select consented_fans, consented_fans_ticketing from marts.consent_coverage where purpose = 'partner_marketing' and channel = 'push'`);
    expect(Number(fans!.n)).toBeGreaterThan(0);
    expect(coverage).toEqual({ consented_fans: fans!.n, consented_fans_ticketing: fans!.n });
  }, 300_000);
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
