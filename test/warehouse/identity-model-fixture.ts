import type { DuckDBConnection } from '@duckdb/node-api';
import { DEFAULT_MODELS_DIR } from '../../src/models/discover-project.js';
import { readIdentityModelConfig } from '../../src/models/identity-model/config.js';
import { readStoredModel, storeModel } from '../../src/models/identity-model/store.js';

/**
 * A trained identity model for tests of hand-made records: a dozen records are too few to train
 * on, so they are judged by the model a club of thousands would have. m and u as training gave
 * them (rounded) on the independent identity set (2,000 persons, seed 3: Norwegian names, typos,
 * households, namesakes), whose records hold no address; the address's from the set without
 * e-mail or phone (bench/contactless-identities, 2,000 persons, seed 3), whose addresses carry
 * slips (the simulator's never do, and its model weighs a slip in a street against a link). The prior is the independent set's (5,209 records). The names of a dozen
 * test records are shared by a good share of them, so their term frequencies weigh them as
 * little as in a small club. `records` is large, so a build of the few test records never
 * counts as the records having grown, and does not train again.
 */
const CLUB_LEVELS: Record<string, Record<string, [number, number]>> = {
  first_name: { exact: [0.965, 0.0245], one_edit: [0.0344, 0.0029], alike: [0.00066, 0.0033], letters_dropped: [0.0079, 0.0012], name_part: [0.0026, 0.00024], short_form: [0.012, 0.0004], initial: [0.004, 0.002], different: [0.00066, 0.969] },
  last_name: { exact: [0.968, 0.0144], one_edit: [0.0318, 0.00186], alike: [0.00066, 0.0026], different: [0.00066, 0.981] },
  birth_date: {
    exact: [0.993, 0.000265], one_digit: [0.0063, 0.00115], day_apart: [0.00072, 0.0000435], day_month_swapped: [0.00072, 0.0000174],
    two_digits: [0.00072, 0.015], different: [0.00072, 0.984],
  },
  email: { exact: [0.782, 0.000225], different: [0.218, 0.99977] },
  phone: { exact: [0.898, 0.000302], same_digits: [0.01, 0.000004], one_digit: [0.0019, 0.0000043], different: [0.102, 0.9997] },
  address: {
    same: [0.642, 0.000183], street_slip: [0.0603, 0.00001], similar_street: [0.03, 0.00002], street_town_swapped: [0.118, 0.0019], same_postcode_and_town_no_street: [0.0247, 0.00025],
    same_postcode_and_town: [0.0243, 0.00562], same_area: [0.184, 0.00383],
    different: [0.0587, 0.990],
  },
};
export const CLUB_PRIOR = 0.000254;

/**
 * Stores the club model in the warehouse's meta, unless a model for the configuration is there;
 * `levels` replaces some levels' m and u (a club whose records keep a field less well).
 */
export async function storeClubModel(connection: DuckDBConnection, levels: Record<string, Record<string, [number, number]>> = {}): Promise<void> {
  const config = (await readIdentityModelConfig(DEFAULT_MODELS_DIR))!;
  if ((await readStoredModel(connection))?.definitionHash === config.definitionHash) return;
  const comparisons = [...new Set(config.levels.map((level) => level.comparison))];
  await storeModel(connection, {
    definitionHash: config.definitionHash,
    records: 1_000_000,
    prior: CLUB_PRIOR,
    priorPairs: 0,
    uSamplePairs: 0,
    sessions: [{ rule: 'test fixture (identity-model-fixture.ts)' }],
    levels: comparisons.flatMap((comparison) => [
      { comparison, levelIndex: 0, level: 'missing', m: null, u: null, uPairs: 0, mSessions: 0 },
      ...config.levels
        .filter((level) => level.comparison === comparison)
        .map((level) => {
          const values = levels[comparison]?.[level.level] ?? CLUB_LEVELS[comparison]?.[level.level];
          if (!values) throw new Error(`identity-model-fixture.ts has no m and u for ${comparison} ${level.level}: add the level's`);
          return { comparison, levelIndex: level.index, level: level.level, m: values[0], u: values[1], uPairs: 0, mSessions: 0 };
        }),
    ]),
  });
}
