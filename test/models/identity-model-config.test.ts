import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exitCodeFor, UsageError } from '../../src/core/errors.js';
import { buildModels } from '../../src/models/index.js';
import { DEFAULT_MODELS_DIR } from '../../src/models/discover-project.js';
import { parseIdentityModelConfig, readIdentityModelConfig } from '../../src/models/identity-model/config.js';

/** The four configuration files as shipped, by role, for editing one line of one. */
function shipped() {
  const read = (name: string) => ({ text: readFileSync(join(DEFAULT_MODELS_DIR, 'identity', name), 'utf8'), file: `sql/identity/${name}` });
  return {
    blocking: read('blocking_rules.csv'),
    levels: read('comparison_levels.csv'),
    deterministic: read('deterministic_rules.csv'),
    training: read('training.csv'),
  };
}

/** The shipped configuration with `from` replaced by `to` in one file; the error parsing it raises. */
function problemWith(role: keyof ReturnType<typeof shipped>, from: string, to: string): string {
  const sources = shipped();
  expect(sources[role].text).toContain(from);
  sources[role] = { ...sources[role], text: sources[role].text.replace(from, to) };
  try {
    parseIdentityModelConfig(sources);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('the configuration was accepted');
}

describe('the identity model configuration', () => {
  it('reads the shipped files: six comparisons, each ending in else, and rules that predict and train', async () => {
    const config = (await readIdentityModelConfig(DEFAULT_MODELS_DIR))!;
    expect(new Set(config.levels.map((level) => level.comparison))).toEqual(new Set(['first_name', 'last_name', 'birth_date', 'email', 'phone', 'address']));
    for (const comparison of new Set(config.levels.map((level) => level.comparison))) {
      expect(config.levels.filter((level) => level.comparison === comparison).at(-1)!.test).toBe('else');
    }
    expect(config.blockingRules.some((rule) => rule.predict)).toBe(true);
    expect(config.blockingRules.some((rule) => rule.train)).toBe(true);
    expect(config.definitionHash).toMatch(/^[0-9a-f]{16}$/);
  });

  it.each([
    ['levels', 'first_name,alike,jaro_winkler,0.88', 'first_nam,alike,jaro_winkler,0.88', 'sql/identity/comparison_levels.csv:5: unknown comparison "first_nam"'],
    ['levels', 'first_name,alike,jaro_winkler,0.88', 'first_name,alike,jaro_winklr,0.88', 'sql/identity/comparison_levels.csv:5: unknown test "jaro_winklr" for first_name'],
    ['levels', 'first_name,alike,jaro_winkler,0.88', 'first_name,alike,jaro_winkler,1.5', 'sql/identity/comparison_levels.csv:5: test jaro_winkler needs a threshold above 0 and at most 1'],
    ['levels', 'email,exact,same,,false,false', 'email,exact,same,,true,false', 'sql/identity/comparison_levels.csv:20: term_frequency applies to a name comparison'],
    ['levels', 'phone,exact,same_number,,false,false', 'phone,exact,same_number,,false,maybe', 'sql/identity/comparison_levels.csv:22: veto must be true or false, not "maybe"'],
    ['levels', 'comparison,level,test', 'comparison,level,tests', 'sql/identity/comparison_levels.csv:1: the header must be comparison,level,test,threshold,term_frequency,veto'],
    ['blocking', 'email,email,30', 'email,e_mail,30', 'sql/identity/blocking_rules.csv:2: unknown block key "e_mail"'],
    ['blocking', 'phone,phone,30', 'phone,phone,1', 'sql/identity/blocking_rules.csv:3: cap must be a whole number of at least 2'],
    ['deterministic', 'email=exact and first_name=exact', 'email=same and first_name=exact', 'sql/identity/deterministic_rules.csv:3: unknown level email=same'],
    ['training', 'assumed_recall,0.7', 'assumed_recal,0.7', 'sql/identity/training.csv:5: unknown setting "assumed_recal"'],
    ['training', 'assumed_recall,0.7', 'assumed_recall,7', 'sql/identity/training.csv:5: assumed_recall must be a number from 0.01 to 1, not "7"'],
  ] as const)('refuses %s with %s changed, naming the file and line', (role, from, to, message) => {
    expect(problemWith(role, from, to)).toContain(message);
  });

  it('stops build before anything runs, as bad usage (exit 2), on a malformed file', async () => {
    const modelsDir = mkdtempSync(join(tmpdir(), 'fanlake-identity-config-'));
    cpSync(DEFAULT_MODELS_DIR, modelsDir, { recursive: true });
    const file = join(modelsDir, 'identity', 'comparison_levels.csv');
    writeFileSync(file, readFileSync(file, 'utf8').replace('birth_date,exact,same', 'birth_date,exact,identical'));
    const failure = await buildModels({ dataDir: mkdtempSync(join(tmpdir(), 'fanlake-identity-data-')), modelsDir }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(UsageError);
    expect((failure as Error).message).toMatch(/comparison_levels\.csv:\d+: unknown test "identical" for birth_date/);
    expect(exitCodeFor(failure)).toBe(2);
  });
});
