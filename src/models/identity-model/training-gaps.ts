import type { StoredModel } from './store.js';

/**
 * What a training could not estimate, one line each, for `fanlake identity train` (and the
 * identity-model report reads the same from meta.identity_model_levels): a comparison no
 * converged EM session estimated m for (its levels keep their starting m), a comparison with no
 * u evidence (it weighs nothing), and each EM session that did not converge (stored, not used).
 */
export function trainingGaps(model: StoredModel): string[] {
  const gaps: string[] = [];
  const comparisons = [...new Set(model.levels.filter((level) => level.levelIndex > 0).map((level) => level.comparison))];
  for (const comparison of comparisons) {
    const levels = model.levels.filter((level) => level.comparison === comparison && level.levelIndex > 0);
    if (levels.every((level) => level.mSessions === 0)) gaps.push(`${comparison}: m not trained (no converged EM session compared it): its levels keep their starting m`);
    if (levels.every((level) => level.uPairs === 0)) gaps.push(`${comparison}: u not trained (no random pair had a value on both sides): it weighs nothing`);
  }
  for (const session of model.sessions as { rule?: string; converged?: boolean; iterations?: number }[]) {
    if (session.converged === false) gaps.push(`EM session of blocking rule ${session.rule ?? '?'} did not converge in ${session.iterations ?? '?'} iterations: not used`);
  }
  return gaps;
}
