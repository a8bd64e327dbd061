import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/simulator.js';
import { runJson } from '../helpers/stage-json.js';
import { runCli, tempDataDir } from '../helpers/cli.js';
import { startTestSimulator } from '../helpers/simulator.js';
import { queryWarehouse } from '../helpers/warehouse.js';

let sims: Simulator[] = [];
afterEach(async () => {
  await Promise.all(sims.map((sim) => sim.close()));
  sims = [];
});

async function simulator(options: Parameters<typeof startTestSimulator>[0] = {}): Promise<Simulator> {
  const sim = await startTestSimulator({ scale: 0.02, ...options });
  sims.push(sim);
  return sim;
}

function envFor(sim: Simulator, dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    FANLAKE_ENGAGEMENT_URL: sim.url,
    FANLAKE_ENGAGEMENT_API_KEY: sim.options.engagementApiKey,
    FANLAKE_ENGAGEMENT_ORG_ID: sim.options.orgId,
    FANLAKE_DATA_DIR: dataDir,
    FANLAKE_HTTP_TIMEOUT_MS: '3000',
    FANLAKE_HTTP_MAX_ATTEMPTS: '8',
    ...extra,
  };
}

/** The one run summary an extract wrote (`$DATA/runs/<runId>.json`). */
function runSummary(dataDir: string): { results: { resource: string; status: string; rows: number; requests: number }[] } {
  const [file] = readdirSync(join(dataDir, 'runs'));
  return JSON.parse(readFileSync(join(dataDir, 'runs', file!), 'utf8'));
}

function resultOf(dataDir: string, resource: string) {
  return runSummary(dataDir).results.find((result) => result.resource === resource);
}

describe('the identities fan-out (GET identities/{id})', () => {
  it('reads every ApiApp identity into raw.engagement_identities with its custom fields, counts its requests, and stages it', async () => {
    const sim = await simulator({ faults: 0.05 });
    const dataDir = tempDataDir();
    const extract = await runJson(['extract', '--resource', 'identities'], envFor(sim, dataDir));
    expect(extract.code, extract.stderr).toBe(0);
    expect(extract.result('engagement.identities')?.status).toBe('ok');

    const people = [...sim.engagementRecords('people')];
    const apiAppPeople = people.filter((person) => person.network === 'apiApp');
    const identities = [...sim.engagementRecords('identities')];
    expect(apiAppPeople.length).toBeGreaterThan(0);
    // One request per ApiApp person, whichever ApiApp created it; no other person is asked for.
    expect(resultOf(dataDir, 'identities')).toMatchObject({ status: 'ok', rows: identities.length, requests: apiAppPeople.length });
    // Its parent table is read too, as the fan-out needs it.
    expect(resultOf(dataDir, 'people')).toMatchObject({ status: 'ok', rows: people.length });

    expect((await runCli(['load'], envFor(sim, dataDir))).code).toBe(0);
    const rows = await queryWarehouse(
      dataDir,
      'select id, nickName, authenticationMethod, extendedProperties::varchar as extended from raw.engagement_identities order by id',
    );
    const truth = new Map(identities.map((identity) => [String(identity.id), identity]));
    expect(rows.map((row) => row.id).sort()).toEqual([...truth.keys()].sort());
    for (const row of rows) {
      const identity = truth.get(row.id)!;
      expect(row.nickName, row.id).toBe(identity.nickName);
      expect(row.authenticationMethod, row.id).toBe(identity.authenticationMethod);
      expect(JSON.parse(row.extended), row.id).toEqual(identity.extendedProperties);
    }
    expect(identities.some((identity) => Object.keys(identity.extendedProperties as object).length > 0)).toBe(true);

    const build = await runCli(['build', '--select', 'stg_engagement__identities'], envFor(sim, dataDir));
    expect(build.code, build.stderr).toBe(0);
    const staged = await queryWarehouse(
      dataDir,
      `select count(*) as n, count(*) filter (where extended_properties is not null) as with_properties,
              count(*) filter (where phone_raw is not null and phone_e164 is null) as unparsed_phones
       from staging.stg_engagement__identities`,
    );
    expect(staged).toEqual([{ n: String(identities.length), with_properties: String(identities.length), unparsed_phones: '0' }]);
  });

  it('asks every person with FANLAKE_ENGAGEMENT_IDENTITIES=all, keeping only the identities (404 is nothing here)', async () => {
    const sim = await simulator();
    const dataDir = tempDataDir();
    const extract = await runCli(['extract', '--resource', 'identities'], envFor(sim, dataDir, { FANLAKE_ENGAGEMENT_IDENTITIES: 'all' }));
    expect(extract.code, extract.stderr).toBe(0);
    const people = [...sim.engagementRecords('people')];
    expect(resultOf(dataDir, 'identities')).toMatchObject({ status: 'ok', rows: [...sim.engagementRecords('identities')].length, requests: people.length });
  });

  it('is left off with FANLAKE_ENGAGEMENT_IDENTITIES=off (or --identities off), which is not a failure', async () => {
    const sim = await simulator();
    for (const [args, extra] of [[[], { FANLAKE_ENGAGEMENT_IDENTITIES: 'off' }], [['--identities', 'off'], {}]] as const) {
      const dataDir = tempDataDir();
      const extract = await runJson(['extract', '--resource', 'identities', ...args], envFor(sim, dataDir, extra));
      expect(extract.code, extract.stderr).toBe(0);
      expect(extract.result('engagement.identities')).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/^left off/) });
      expect(existsSync(join(dataDir, 'raw', 'engagement', 'identities'))).toBe(false);
    }
  });

  it('is skipped, not failed, when the organization has no ApiApp module; the rest lands', async () => {
    const sim = await simulator({ disabledModules: ['apiApp'] });
    const dataDir = tempDataDir();
    const extract = await runJson(['extract', '--resource', 'identities', 'consents'], envFor(sim, dataDir));
    expect(extract.code, extract.stderr).toBe(0);
    expect(extract.result('engagement.identities')).toMatchObject({ status: 'skipped', reason: 'not enabled for this organization (the API answered 403; module apiApp)' });
    expect(extract.result('engagement.consents')?.status).toBe('ok');
    expect(extract.step.errors).toEqual([]);
  });

  it('rejects an unknown selection as bad usage', async () => {
    const sim = await simulator();
    const extract = await runCli(['extract', '--resource', 'identities'], envFor(sim, tempDataDir(), { FANLAKE_ENGAGEMENT_IDENTITIES: 'some' }));
    expect(extract.code).toBe(2);
    expect(extract.stderr).toMatch(/engagement\.identities: must be apiApp, all, off/);
  });
});
