import { access } from 'node:fs/promises';
import { join } from 'node:path';
import type { ModelProject } from './discover-project.js';

/**
 * The mappings a club owns: what its codes and texts mean. Each is a seed of `sql/seeds/`
 * whose file holds the defaults (our simulator's club); a file of the same name in the club's
 * folder replaces it whole. Every mapping is keyed on a code AND its name or text, so a default
 * applies only where both match exactly and another club's codes show as unmapped.
 */
export const CLUB_MAPPINGS = ['consent_meanings', 'order_status_groups', 'order_type_groups', 'sales_channels'] as const;
export type ClubMapping = (typeof CLUB_MAPPINGS)[number];

/** The project with each club mapping read from `clubDir` where the club has its own file. */
export async function withClubFiles(project: ModelProject, clubDir: string | undefined): Promise<ModelProject> {
  if (!clubDir) return project;
  const seeds = await Promise.all(
    project.seeds.map(async (seed) => {
      if (!(CLUB_MAPPINGS as readonly string[]).includes(seed.name)) return seed;
      const path = join(clubDir, `${seed.name}.csv`);
      const exists = await access(path).then(() => true, () => false);
      return exists ? { ...seed, path, file: `club/${seed.name}.csv` } : seed;
    }),
  );
  return { ...project, seeds };
}
