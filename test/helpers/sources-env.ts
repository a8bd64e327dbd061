import type { Simulator } from '../../src/simulator/simulator.js';

/** Environment pointing both sources at a simulator, so a `run` builds every model. */
export function sourcesEnv(sim: Simulator, dataDir: string): Record<string, string> {
  return {
    FANLAKE_TICKETING_URL: sim.url,
    FANLAKE_TICKETING_TOKEN: sim.options.ticketingToken,
    FANLAKE_ENGAGEMENT_URL: sim.url,
    FANLAKE_ENGAGEMENT_API_KEY: sim.options.engagementApiKey,
    FANLAKE_ENGAGEMENT_ORG_ID: sim.options.orgId,
    FANLAKE_DATA_DIR: dataDir,
  };
}
