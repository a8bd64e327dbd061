import { expect } from 'vitest';
import type { Simulator } from '../../src/simulator/simulator.js';
import type { Item } from '../../src/simulator/store/cursor-resource.js';
import { runCli, tempDataDir } from '../helpers/cli.js';
import { startTestSimulator } from '../helpers/simulator.js';
import { cliEnv, runCliOk } from '../warehouse/identity-fixture.js';

/** Strings an API could send that would run as markup if a page did not escape them. */
export const HOSTILE_TEAM = '<script>alert(1)</script>';
export const HOSTILE_CHANNEL = '<img src=x onerror=alert(2)>';
export const HOSTILE_MATCH_ID = 990_001;

export interface ReportWarehouse {
  sim: Simulator;
  dataDir: string;
  env: Record<string, string>;
  /** Season of the hostile match (the newest season of the simulated tickets). */
  season: string;
}

/**
 * A tiny warehouse built by the real CLI from both simulated APIs (extract, load, build,
 * check), with one sold ticket whose away team and sales channel are markup, and one ticket
 * the extractor quarantines (its `id_event` is not a number).
 */
export async function buildReportWarehouse(): Promise<ReportWarehouse> {
  const sim = await startTestSimulator({ scale: 0.02, seed: 11 });
  const tickets = [...sim.ticketingRecords('tickets')] as Item[];
  const sold = tickets.filter((ticket) => ticket.order_type !== null && ticket.order_status_text === 'Completed' && !ticket.just_seasonticket_sales);
  const season = sold.map((ticket) => String(ticket.season)).sort().at(-1)!;
  const template = sold.find((ticket) => String(ticket.season) === season)!;
  const at = sim.clock.now() - 60_000;
  const lastUpdate = new Date(at).toISOString();
  sim.addTicketingVerbatim(
    'tickets',
    [
      { ...template, id: '99000001', id_event: HOSTILE_MATCH_ID, match_team_away_name: HOSTILE_TEAM, order_channel: HOSTILE_CHANNEL, last_update: lastUpdate },
      { ...template, id: '99000002', id_event: 'not-a-number', last_update: lastUpdate },
    ],
    at,
  );
  const dataDir = tempDataDir();
  const env = cliEnv(sim, dataDir);
  await runCliOk(['extract'], env);
  await runCliOk(['load'], env);
  await runCliOk(['build'], env);
  const check = await runCli(['check'], env);
  expect(check.code, check.stderr).not.toBe(2);
  return { sim, dataDir, env, season };
}
