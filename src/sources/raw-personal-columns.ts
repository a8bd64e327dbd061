import { ENGAGEMENT_TABLES } from './engagement/index.js';
import type { PersonalColumn } from './personal-data.js';
import type { TableSpec } from './resource-spec.js';
import { TICKETING_RESOURCES } from './ticketing/index.js';

/** Every raw table as the warehouse names it (`raw.<source>_<table>`), with its declaration. */
export function rawTables(): { relation: string; source: 'ticketing' | 'engagement'; spec: TableSpec }[] {
  return [
    ...TICKETING_RESOURCES.map((spec) => ({ relation: `raw.ticketing_${spec.name}`, source: 'ticketing' as const, spec })),
    ...ENGAGEMENT_TABLES.map((spec) => ({ relation: `raw.engagement_${spec.name}`, source: 'engagement' as const, spec })),
  ];
}

/** The personal columns of every raw table, in declaration order. */
export function rawPersonalColumns(): PersonalColumn[] {
  return rawTables().flatMap(({ relation, spec }) =>
    Object.entries(spec.personal ?? {}).map(([column, kind]) => ({ relation, column, kind })),
  );
}
