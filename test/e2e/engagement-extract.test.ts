import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/simulator.js';
import { ENGAGEMENT_RESOURCES, type EngagementResource } from '../../src/simulator/population/engagement/index.js';
import { expectOneError, runJson } from '../helpers/stage-json.js';
import { runCli, tempDataDir } from '../helpers/cli.js';
import { startTestSimulator } from '../helpers/simulator.js';
import { queryWarehouse } from '../helpers/warehouse.js';

let sims: Simulator[] = [];
afterEach(async () => {
  await Promise.all(sims.map((sim) => sim.close()));
  sims = [];
});

async function simulator(options: Parameters<typeof startTestSimulator>[0] = {}): Promise<Simulator> {
  const sim = await startTestSimulator({ scale: 0.03, ...options });
  sims.push(sim);
  return sim;
}

function envFor(sim: Simulator, dataDir: string): Record<string, string> {
  return {
    FANLAKE_ENGAGEMENT_URL: sim.url,
    FANLAKE_ENGAGEMENT_API_KEY: sim.options.engagementApiKey,
    FANLAKE_ENGAGEMENT_ORG_ID: sim.options.orgId,
    FANLAKE_ENGAGEMENT_CONTEXT_ROOTS: contextRoots(sim).join(','),
    FANLAKE_ENGAGEMENT_LOYALTY: 'true',
    FANLAKE_DATA_DIR: dataDir,
    // Generous for a loaded CI machine; simulated stalls last longer still.
    FANLAKE_HTTP_TIMEOUT_MS: '3000',
    FANLAKE_HTTP_MAX_ATTEMPTS: '8',
  };
}

function contextRoots(sim: Simulator): string[] {
  return [...sim.engagementRecords('context_nodes')].filter((node) => !String(node.path).includes('.')).map((node) => String(node.id));
}

const KEY_SQL: Partial<Record<EngagementResource, string>> = {
  top_positions: "season_id || '|' || coalesce(interval_id, '-') || '|' || customerProfileId",
};

function truthKeys(sim: Simulator, resource: EngagementResource): Set<string> {
  return new Set(
    [...sim.engagementRecords(resource, { positionCount: 100 })]
      // Demographic boards are read only for configured values; none are configured here.
      .filter((r) => resource !== 'top_positions' || r.demographic_value === null)
      .map((r) =>
      resource === 'top_positions' ? `${r.season_id}|${r.interval_id ?? '-'}|${r.customerProfileId}` : String(r.id),
    ),
  );
}

async function warehouseKeys(dataDir: string, resource: EngagementResource, where = 'true'): Promise<Set<string>> {
  const rows = await queryWarehouse(dataDir, `select ${KEY_SQL[resource] ?? 'id'} as k from raw.engagement_${resource} where ${where}`);
  const keys = new Set(rows.map((row) => String(row.k)));
  expect(keys.size, `raw.engagement_${resource}: one row per key`).toBe(rows.length);
  return keys;
}

describe('fanlake extract --source engagement, then load', () => {
  it('lands every resource completely despite faults, and names the user-scoped ones as skipped', async () => {
    const sim = await simulator({ faults: 0.1, stallMs: 4500 });
    const dataDir = tempDataDir();
    const extract = await runJson(['extract', '--source', 'engagement'], envFor(sim, dataDir));
    expect(extract.code, extract.stderr).toBe(0);
    expect(extract.result('engagement.activities')).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/user-scoped/) });
    expect(extract.step.errors).toEqual([]);
    expect((await runCli(['load'], envFor(sim, dataDir))).code).toBe(0);
    for (const resource of ENGAGEMENT_RESOURCES) {
      if (resource === 'top_positions' || resource === 'context_nodes') continue;
      const expected = truthKeys(sim, resource);
      const actual = await warehouseKeys(dataDir, resource);
      expect([...expected].filter((key) => !actual.has(key)).slice(0, 3), resource).toEqual([]);
      expect(actual.size, resource).toBe(expected.size);
    }
    const positions = await warehouseKeys(dataDir, 'top_positions');
    expect(positions).toEqual(truthKeys(sim, 'top_positions'));
    const nodes = await queryWarehouse(dataDir, 'select count(*) as n, count(*) filter (where parent_id is null) as roots from raw.engagement_context_nodes');
    expect(nodes[0]).toEqual({ n: String([...sim.engagementRecords('context_nodes')].length), roots: String(contextRoots(sim).length) });
    const loyalty = await queryWarehouse(dataDir, 'select count(*) as n from raw.engagement_loyalty_summaries');
    expect(Number(loyalty[0]!.n)).toBeGreaterThan(0);
  });

  it('flags a customer profile removed between two runs as vanished, keeping the row', async () => {
    const sim = await simulator();
    const dataDir = tempDataDir();
    expect((await runCli(['extract', '--resource', 'customer_profiles'], envFor(sim, dataDir))).code).toBe(0);
    expect((await runCli(['load'], envFor(sim, dataDir))).code).toBe(0);
    const [victim] = [...truthKeys(sim, 'customer_profiles')];
    expect(sim.removeCustomerProfiles([victim!])).toEqual([victim]);
    expect((await runCli(['extract', '--resource', 'customer_profiles'], envFor(sim, dataDir))).code).toBe(0);
    const load = await runJson(['load'], envFor(sim, dataDir));
    expect(load.result('raw.engagement_customer_profiles')).toMatchObject({ status: 'ok', counts: { runs: 1, inserted: 0, updated: 0, vanished: 1 } });
    const flagged = await queryWarehouse(dataDir, 'select id from raw.engagement_customer_profiles where _vanished_at is not null');
    expect(flagged).toEqual([{ id: victim }]);
    expect((await warehouseKeys(dataDir, 'customer_profiles')).has(victim!)).toBe(true);
    const people = await queryWarehouse(dataDir, `select count(*) as n from raw.engagement_people where "customerProfileId" = '${victim}' and _vanished_at is not null`);
    expect(Number(people[0]!.n)).toBeGreaterThan(0);
  });

  it('reports a module the organization lacks and goes on with the others', async () => {
    const sim = await simulator({ disabledModules: ['create'] });
    const dataDir = tempDataDir();
    const extract = await runJson(['extract', '--source', 'engagement'], envFor(sim, dataDir));
    expect(extract.code, extract.stderr).toBe(0);
    expect(extract.result('engagement.campaign_apps')).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/^not enabled for this organization/) });
    expect(extract.result('engagement.participants')?.status).toBe('skipped');
    expect(extract.result('engagement.customer_profiles')?.status).toBe('ok');
    // A module the organization lacks is not an error.
    expect(extract.step.errors).toEqual([]);
  });

  it('reports a failing fan-out child by id, lands the rest and exits 1', async () => {
    const sim = await simulator();
    const dataDir = tempDataDir();
    const [profile] = [...sim.engagementRecords('customer_profiles')];
    const personId = (profile!.links as { people: string[] }).people[0]!;
    sim.faults.force(new RegExp(`/customerprofiles/${personId}/consents`), 'status-500');
    const extract = await runJson(['extract', '--resource', 'consents'], { ...envFor(sim, dataDir), FANLAKE_HTTP_MAX_ATTEMPTS: '2' });
    // The child that failed after its two attempts, as an error object: code, retryable, and which child.
    expectOneError(extract, { name: 'engagement.consents', status: 'partial' }, {
      code: 'E_HTTP_GAVE_UP',
      retryable: true,
      message: 'gave up after 2 attempts',
      context: { source: 'engagement', resource: 'consents', childId: expect.stringContaining(`identity ${personId}`), page: 0, status: 500, attempts: 2 },
    });
    expect(extract.step.error).toContain(`identity ${personId}`);
    expect((await runCli(['load'], envFor(sim, dataDir))).code).toBe(0);
    const expected = [...sim.engagementRecords('consents')].filter((c) => String(c.customerProfileId) !== String(profile!.id));
    const actual = await warehouseKeys(dataDir, 'consents');
    expect(expected.filter((c) => !actual.has(String(c.id)))).toEqual([]);
  });
});
