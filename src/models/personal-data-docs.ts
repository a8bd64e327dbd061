import { PERSONAL_KINDS, type PersonalColumn, type PersonalFields, type PersonalKind } from '../sources/personal-data.js';
import { rawPersonalColumns } from '../sources/raw-personal-columns.js';
import type { ModelDefinition } from './discover-project.js';

/** The declared personal columns of the models, in the project's order. */
export function modelPersonalColumns(models: readonly Pick<ModelDefinition, 'relation' | 'personal'>[]): PersonalColumn[] {
  return models.flatMap((model) => Object.entries(model.personal).map(([column, kind]) => ({ relation: model.relation, column, kind })));
}

/**
 * docs/interface.md's list of where personal data lives: the kinds, then one row per raw table
 * and model that holds any, its columns grouped by kind. `make docs` writes it; a test holds
 * it to the declarations.
 */
export function personalDataMarkdown(models: readonly Pick<ModelDefinition, 'relation' | 'personal'>[]): string {
  const kinds = Object.entries(PERSONAL_KINDS).map(([kind, meaning]) => `| \`${kind}\` | ${meaning} |`);
  const rows = [...groupByRelation(rawPersonalColumns()), ...groupByRelation(modelPersonalColumns(models))].map(
    ([relation, fields]) => `| \`${relation}\` | ${byKind(fields)} |`,
  );
  return ['| kind | holds |', '|---|---|', ...kinds, '', '| table | personal columns, by kind |', '|---|---|', ...rows].join('\n');
}

function groupByRelation(columns: readonly PersonalColumn[]): [string, PersonalFields][] {
  const grouped = new Map<string, Record<string, PersonalKind>>();
  for (const { relation, column, kind } of columns) grouped.set(relation, { ...grouped.get(relation), [column]: kind });
  return [...grouped];
}

function byKind(fields: PersonalFields): string {
  return (Object.keys(PERSONAL_KINDS) as PersonalKind[])
    .map((kind) => [kind, Object.keys(fields).filter((column) => fields[column] === kind)] as const)
    .filter(([, columns]) => columns.length > 0)
    .map(([kind, columns]) => `${kind}: ${columns.map((column) => `\`${column}\``).join(', ')}`)
    .join('; ');
}
