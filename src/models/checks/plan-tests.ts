import { quoteIdent, quoteLiteral } from '../../core/duckdb.js';
import type { CustomTestKey, ModelProject } from '../discover-project.js';
import type { DeclaredTest, RowsOf } from '../model-header.js';
import { compareRelations } from '../model-graph.js';
import { selectBody } from '../sql-references.js';
import type { Freshness } from './sources-file.js';
import { describeDeclaration } from './test-declaration.js';
import type { Severity, TestDeclaration, TestKind } from './test-declaration.js';

export type CheckKind = TestKind | 'freshness' | 'custom';

/** One data test ready to run: a query returning the failing rows, or a freshness rule. */
export type PlannedTest = {
  /** Stable label, e.g. `marts.dim_fan: unique(fan_id)` or `tests/no_orphan_tickets`. */
  name: string;
  kind: CheckKind;
  /** The relation tested; absent for custom tests. */
  target?: string;
  /** Declared severity; a freshness test may fail at `warn` before it fails at `error`. */
  severity: Severity;
  /** Failing rows to show, where the test declares it (custom tests' `-- show: N`). */
  show?: number;
  /** The relations a declared test reads, lowercased (its target, and a relationships test's parent); custom tests' are parsed from their SQL. */
  reads?: readonly string[];
  /** A declared test's declaration, to test the rows that changed (delta-tests.ts). */
  declaration?: TestDeclaration;
  /** A custom test's keys (`-- key:`), to test the keys that changed (keyed-tests.ts). */
  keys?: readonly CustomTestKey[];
  /** A view's rows as rows of one relation (`-- rows_of:`), to test the view's rows whose key changed (delta-tests.ts). */
  rowsOf?: RowsOf;
} & ({ sql: string } | { freshness: Freshness });

/** Every test of the project: sources first, then models by layer and name, then custom tests. */
export function planTests(project: ModelProject): PlannedTest[] {
  const planned: PlannedTest[] = [];
  for (const source of project.sources) {
    planned.push(...source.tests.map((test) => declared(source.relation, test)));
    if (source.freshness) {
      const { freshness } = source;
      planned.push({
        name: `${source.relation}: freshness(${freshness.field})`,
        kind: 'freshness',
        target: source.relation,
        severity: freshness.errorAfterHours === undefined ? 'warn' : 'error',
        freshness,
      });
    }
  }
  const models = [...project.models].sort((a, b) => compareRelations(a.relation, b.relation));
  for (const model of models) planned.push(...model.tests.map((test) => declared(model.relation, test, model.rowsOf)));
  for (const test of project.customTests) {
    planned.push({
      name: `tests/${test.name}`,
      kind: 'custom',
      severity: test.severity,
      ...(test.show ? { show: test.show } : {}),
      ...(test.keys ? { keys: test.keys } : {}),
      sql: selectBody(test.sql),
    });
  }
  return planned;
}

/** A declared test of `relation`; a view's reads the relation its rows are made of too (`rowsOf`), whose changes say which of its rows changed. */
function declared(relation: string, test: DeclaredTest, rowsOf?: RowsOf): PlannedTest {
  const parent = test.declaration.kind === 'relationships' ? [`${test.declaration.to.schema}.${test.declaration.to.table}`.toLowerCase()] : [];
  return {
    name: `${relation}: ${describeDeclaration(test.declaration)}`,
    kind: test.declaration.kind,
    target: relation,
    severity: test.severity,
    reads: [relation.toLowerCase(), ...parent, ...(rowsOf === undefined ? [] : [rowsOf.relation])],
    declaration: test.declaration,
    ...(rowsOf === undefined ? {} : { rowsOf }),
    sql: failingRowsSql(relation, test.declaration),
  };
}

/** The query whose rows are the failures of a generic test. */
export function failingRowsSql(relation: string, declaration: TestDeclaration): string {
  const table = relation.split('.').map(quoteIdent).join('.');
  switch (declaration.kind) {
    case 'unique': {
      const columns = declaration.columns.map(quoteIdent);
      return `select ${columns.join(', ')}, count(*) as n_records
from ${table}
where not (${columns.map((column) => `${column} is null`).join(' and ')})
group by ${columns.join(', ')}
having count(*) > 1
order by n_records desc`;
    }
    case 'not_null':
      return `select *
from ${table}
where ${declaration.columns.map((column) => `${quoteIdent(column)} is null`).join(' or ')}`;
    case 'relationships': {
      const { to } = declaration;
      const column = quoteIdent(declaration.column);
      return `select child.*
from ${table} as child
where child.${column} is not null
    and not exists (
        select 1
        from ${quoteIdent(to.schema)}.${quoteIdent(to.table)} as parent
        where parent.${quoteIdent(to.column)} = child.${column}
    )`;
    }
    case 'accepted_values': {
      const column = quoteIdent(declaration.column);
      return `select ${column}, count(*) as n_records
from ${table}
where ${column} is not null
    and ${column}::varchar not in (${declaration.values.map(quoteLiteral).join(', ')})
group by ${column}
order by n_records desc`;
    }
  }
}
