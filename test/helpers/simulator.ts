import { Simulator } from '../../src/simulator/simulator.js';
import type { SimulatorOptionsInput } from '../../src/simulator/options.js';

/** A pinned clock keeps every test's data identical run to run. */
export const TEST_NOW = '2026-06-01T00:00:00Z';

export async function startTestSimulator(options: SimulatorOptionsInput = {}): Promise<Simulator> {
  return Simulator.start({ port: 0, scale: 0.02, seed: 42, now: TEST_NOW, admin: true, ...options });
}

/** GET with the simulator's ticketing token; returns status and parsed body. */
export async function ticketingGet(sim: Simulator, pathAndQuery: string, auth = `Basic ${sim.options.ticketingToken}`) {
  const response = await fetch(`${sim.url}${pathAndQuery}`, { headers: auth ? { authorization: auth } : {} });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) as any };
}
