import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CLUB_FILES_DIR } from '../../src/models/club/club-files.js';
import { runCli } from '../helpers/cli.js';
import { sharedWarehouse } from '../helpers/shared-warehouse.js';
import { queryWarehouse } from '../helpers/warehouse.js';
import { runCliOk } from '../warehouse/identity-fixture.js';

/**
 * The audience report's headline figures follow the club's own consent mapping and words: a
 * figure for each purpose and channel the club maps, named by its display_names.csv, through
 * the real CLI. The purposes themselves are fanlake's fixed words (PURPOSES): a club's own name
 * for its marketing is a display name, so dim_fan's consent flags stay filled.
 */

/** The club's words for each purpose. */
const OWN_PURPOSES: Record<string, string> = {
  club_marketing: 'Nyheter fra klubben',
  partner_marketing: 'Tilbud fra partnere',
  profiling: 'Tilpasset innhold',
  transactional: 'Tjenestemeldinger',
};
const OWN_CHANNELS: Record<string, string> = { email: 'E-post', sms: 'SMS', push: 'Appvarsler' };

interface RenderedFigure {
  label: string;
  value: unknown;
}

let dataDir: string;
let figures: RenderedFigure[];
let html: string;
/** Each purpose and channel the club's consent_meanings.csv names, as the figure labels should read. */
let expectedLabels: string[];

beforeAll(async () => {
  dataDir = await sharedWarehouse({ simulator: { scale: 0.02, seed: 42 } });
  const clubDir = join(mkdtempSync(join(tmpdir(), 'fanlake-club-purposes-')), 'club');
  cpSync(DEFAULT_CLUB_FILES_DIR, clubDir, { recursive: true });

  const meanings = readFileSync(join(clubDir, 'consent_meanings.csv'), 'utf8').split('\n').slice(1).filter((line) => line !== '');
  const names = ['kind,code,display_name', ...Object.entries(OWN_PURPOSES).map(([code, name]) => `purpose,${code},${name}`), ...Object.entries(OWN_CHANNELS).map(([code, name]) => `channel,${code},${name}`)];
  writeFileSync(join(clubDir, 'display_names.csv'), `${names.join('\n')}\n`);

  const pairs = new Set<string>();
  for (const line of meanings) {
    const [, purpose, channel] = /,([a-z_]+),(email|sms|push|),/.exec(line)!;
    pairs.add(channel === '' ? `Consented: ${OWN_PURPOSES[purpose!]}` : `Reachable: ${OWN_PURPOSES[purpose!]} by ${OWN_CHANNELS[channel!]}`);
  }
  expectedLabels = [...pairs].sort();

  const env = { FANLAKE_DATA_DIR: dataDir, FANLAKE_CLUB_DIR: clubDir };
  await runCliOk(['build'], env);
  const out = mkdtempSync(join(tmpdir(), 'fanlake-reports-'));
  const rendered = await runCli(['report', 'audience-consent', '--out', out], env);
  expect(rendered.code, rendered.stderr).toBe(0);
  const latest = join(out, 'audience-consent', 'latest');
  figures = (JSON.parse(readFileSync(join(latest, 'rendering.json'), 'utf8')) as { figures: RenderedFigure[] }).figures;
  html = readFileSync(join(latest, 'index.html'), 'utf8');
}, 240_000);

describe('the audience report in the club\'s words', () => {
  it('shows a headline figure for every purpose and channel the club maps, in its words', () => {
    const labels = figures.map((figure) => figure.label);
    expect(labels[0]).toBe('Fans');
    expect(labels.slice(1, -1)).toEqual(expectedLabels);
    expect(labels.at(-1)).toContain('Kept from every channel');
    for (const label of expectedLabels) expect(html).toContain(label);
  });

  it('gives each figure its value: none empty, and they are the fans the marts count', async () => {
    expect(figures.filter((figure) => figure.value === null)).toEqual([]);
    const coverage = await queryWarehouse(dataDir, `select purpose, channel, total_fans::integer as total, reachable_fans::integer as reachable from marts.consent_coverage`);
    const reach = (purpose: string, channel: string) => coverage.find((row) => row.purpose === purpose && row.channel === channel)!.reachable as number;
    const value = (label: string) => Number(figures.find((figure) => figure.label === label)!.value);
    expect(value('Fans')).toBe(coverage[0]!.total);
    expect(value(`Reachable: Nyheter fra klubben by E-post`)).toBe(reach('club_marketing', 'email'));
    expect(reach('club_marketing', 'email')).toBeGreaterThan(0);
    expect(value(`Reachable: Tilbud fra partnere by SMS`)).toBe(reach('partner_marketing', 'sms'));
    expect(value(`Consented: Tilpasset innhold`)).toBe(reach('profiling', 'none'));
  });
});
