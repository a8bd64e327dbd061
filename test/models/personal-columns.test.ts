import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rm } from 'node:fs/promises';
import { openDatabase } from '../../src/core/duckdb.js';
import { discoverProject } from '../../src/models/discover-project.js';
import { readLineage } from '../../src/models/lineage.js';
import { buildGraph } from '../../src/models/model-graph.js';
import { parseModelHeader } from '../../src/models/model-header.js';
import { checkPersonalDeclarations, personalNames } from '../../src/models/personal-lineage.js';
import { parseSelect, parseSelects, type SqlTree } from '../../src/models/sql-references.js';
import { rawPersonalColumns, rawTables } from '../../src/sources/raw-personal-columns.js';
import { personalDataMarkdown } from '../../src/models/personal-data-docs.js';
import { docPart } from '../helpers/doc-part.js';
import { sharedWarehouse } from '../helpers/shared-warehouse.js';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';

let instance: DuckDBInstance;
let connection: DuckDBConnection;

beforeAll(async () => {
  instance = await openDatabase(':memory:', { threads: 1 });
  connection = await instance.connect();
});

afterAll(() => {
  connection?.closeSync();
  instance?.closeSync();
});

async function carried(sql: string, inputs: string[]): Promise<string[]> {
  const parsed = await parseSelect(connection, sql);
  if (!parsed.ok) throw new Error(parsed.problem);
  return [...personalNames(parsed.tree, inputs)].filter((name) => !inputs.includes(name)).sort();
}

describe('personal columns of the raw tables', () => {
  it('are declared fields of their table', () => {
    const undeclared = rawTables().flatMap(({ relation, spec }) => Object.keys(spec.personal ?? {}).filter((column) => !(column in spec.fields)).map((column) => `${relation}.${column}`));
    expect(undeclared).toEqual([]);
    expect(rawPersonalColumns().map((c) => `${c.relation}.${c.column}`)).toEqual(expect.arrayContaining(['raw.ticketing_users.email', 'raw.engagement_customer_profiles.phoneNumber', 'raw.ticketing_tickets.user_held_email']));
  });
});

describe('a model header\'s personal columns', () => {
  it('reads "column (kind)" lists, on as many lines as needed, and names a bad entry', () => {
    const { header, problems } = parseModelHeader('-- personal: email (email), first_name (name)\n-- personal: phone (phone)\nselect 1');
    expect(problems).toEqual([]);
    expect(header.personal).toEqual({ email: 'email', first_name: 'name', phone: 'phone' });
    expect(parseModelHeader('-- personal: email\nselect 1').problems[0]).toMatch(/"email" is not "column \(kind\)" with a kind among name, email, phone/);
    expect(parseModelHeader('-- personal: email (mail)\nselect 1').problems).toHaveLength(1);
  });
});

describe('which columns of a query carry personal data', () => {
  it('follows renames and functions through CTEs and stars, not counts, comparisons or filters', async () => {
    const sql = `with users as (select u.email as mail, u.user_id from raw.t as u where u.phone is not null),
      final as (select *, lower(mail) as mail_key, count(mail) over () as mails, mail is null as has_no_mail,
                       case when mail like '%@%' then 'valid' end as mail_state,
                       row_number() over (partition by mail) as mail_rank from users)
      select * from final`;
    expect(await carried(sql, ['email', 'phone'])).toEqual(['mail', 'mail_key']);
  });

  it('follows a scalar subquery and the branches of a case, not its conditions', async () => {
    expect(await carried('select (select max(phone) from raw.t) as p, case when name is null then email end as e from raw.u', ['phone', 'email', 'name'])).toEqual(['e', 'p']);
  });
});

describe('every model that selects a personal column declares it', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await sharedWarehouse({ simulator: { scale: 0.02, seed: 42 } });
  }, 600_000);
  afterAll(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('docs/interface.md lists every declared personal column', async () => {
    expect(await docPart('docs/interface.md', 'personal-data'), 'docs/interface.md is out of date: run make docs').toBe(personalDataMarkdown((await discoverProject()).models));
  });

  it('in sql/, judged by the columns each built model has; a model that drops a declaration fails', async () => {
    const project = await discoverProject();
    const graph = await buildGraph(project, connection);
    const parsed = await parseSelects(connection, project.models.map((model) => model.sql));
    const trees = new Map<string, SqlTree>();
    for (const [at, model] of project.models.entries()) {
      const result = parsed[at]!;
      if (result.ok) trees.set(model.relation, result.tree);
    }
    const lineage = (await readLineage(dataDir))!;
    const columns = new Map(lineage.models.map((model) => [model.relation, (model.columns ?? []).map((column) => column.name)]));
    const problems = checkPersonalDeclarations(graph, trees, rawPersonalColumns(), (relation) => columns.get(relation));
    const described = problems.map((p) => `${p.file}:${p.undeclared.length ? ` undeclared ${p.undeclared.join(', ')}` : ''}${p.unknown.length ? ` not a column: ${p.unknown.join(', ')}` : ''}`);
    expect(described).toEqual([]);

    const withoutDeclaration = new Map(graph.nodes);
    const dimFan = graph.nodes.get('marts.dim_fan')!;
    if (dimFan.kind !== 'model') throw new Error('marts.dim_fan is a model');
    withoutDeclaration.set('marts.dim_fan', { ...dimFan, model: { ...dimFan.model, personal: { email: 'email' } } });
    const flagged = checkPersonalDeclarations({ ...graph, nodes: withoutDeclaration }, trees, rawPersonalColumns(), (relation) => columns.get(relation));
    expect(flagged).toEqual([{ file: 'sql/marts/dim_fan.sql', undeclared: expect.arrayContaining(['first_name', 'phone_e164', 'birth_date']), unknown: [] }]);
  });
});
