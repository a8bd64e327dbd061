import type { Simulator } from '../../src/simulator/simulator.js';

/** One record of the simulator's ground truth: which person a source record belongs to. */
export interface TruthLink {
  system: string;
  recordId: string;
  personId: number;
}

/** The simulator's records by the person they belong to (`/__admin/truth`). */
export async function recordsByPerson(sim: Simulator): Promise<Map<number, TruthLink[]>> {
  const truth = (await fetch(`${sim.url}/__admin/truth`).then((response) => response.text()))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as TruthLink);
  const byPerson = new Map<number, TruthLink[]>();
  for (const link of truth) byPerson.set(link.personId, [...(byPerson.get(link.personId) ?? []), link]);
  return byPerson;
}
