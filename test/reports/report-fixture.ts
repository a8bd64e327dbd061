import { expect } from 'vitest';
import type { Simulator } from '../../src/simulator/simulator.js';
import type { Item } from '../../src/simulator/store/cursor-resource.js';
import { runCli } from '../helpers/cli.js';
import { sharedWarehouse } from '../helpers/shared-warehouse.js';
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

/** The default test simulator's: its warehouse is shared with other files (sharedWarehouse). */
const SIMULATOR = { scale: 0.02, seed: 42 };

/**
 * A tiny warehouse built by the real CLI from both simulated APIs, then given one sold ticket
 * whose away team and sales channel are markup and one ticket the extractor quarantines (its
 * `id_event` is not a number) by a second extract of the tickets, load, build and check.
 */
export async function buildReportWarehouse(): Promise<ReportWarehouse> {
  const dataDir = await sharedWarehouse({ simulator: SIMULATOR });
  const sim = await startTestSimulator(SIMULATOR);
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
  const env = cliEnv(sim, dataDir);
  // In full: an incremental run starts where the last one ended (the extractor's clock), months
  // after the simulator's pinned clock stamps these tickets.
  await runCliOk(['extract', '--source', 'ticketing', '--resource', 'tickets', '--full-refresh'], env);
  await runCliOk(['load'], env);
  await runCliOk(['build'], env);
  const check = await runCli(['check'], env);
  expect(check.code, check.stderr).not.toBe(2);
  return { sim, dataDir, env, season };
}
