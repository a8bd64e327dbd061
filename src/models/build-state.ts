import { createHash, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import { queryRows, quoteIdent, quoteLiteral } from '../core/duckdb.js';
import type { ModelDefinition } from './discover-project.js';
import { macroFingerprints, type MacroNode } from './macros.js';
import type { ModelGraph } from './model-graph.js';
import { EXTRACTED_AT_COLUMN } from '../raw-contract/index.js';
import { bookkeepingRelation, ensureBookkeeping, findBookkeeping } from '../warehouse/bookkeeping.js';
import { loadedState, readModelChanges } from '../warehouse/changed-keys.js';

/** Where the fingerprint of each model's last successful build is kept, in the warehouse itself. */
const BUILDS = bookkeepingRelation('build_state');

/**
 * What decides whether a model must be built again, read once per build: the state of the raw
 * tables the graph reads, the text of every seed and a hash of every macro. Two hashes come
 * from it. `fingerprint`: what a model's output depends on (its definition's parts, what its
 * parents hold, the raw tables' state: the generation their loads record, which a load that
 * only read rows again leaves); a model whose fingerprint matches its last build is left as
 * it is, so a build costs what changed, not the warehouse. `definition`: what it computes
 * apart from the data (an incremental model whose definition changed is built in full). Raw
 * tables edited by hand, outside `fanlake load`, need `build --full-refresh`.
 */
export class BuildInputs {
  private readonly fingerprints = new Map<string, string>();
  private readonly definitions = new Map<string, string>();
  private readonly macroNodes: Map<string, MacroNode>;
  /** Tells this build from every other: a model reading the clock (`as_of: build`) is built by each. */
  private readonly buildId = randomUUID();

  private constructor(
    private readonly graph: ModelGraph,
    private readonly sources: ReadonlyMap<string, string>,
    private readonly reads: ReadonlyMap<string, string>,
    private readonly macros: Map<string, string>,
    private readonly seedTexts: ReadonlyMap<string, string>,
  ) {
    this.macroNodes = new Map(graph.macros);
  }

  /**
   * Reads the state of every raw table the graph reads (those present), the newest read of
   * those a model taking extraction time as "now" reads (`as_of: extraction`), and every seed file.
   */
  static async read(connection: DuckDBConnection, graph: ModelGraph, presentSources: ReadonlySet<string>): Promise<BuildInputs> {
    const generations = await readModelChanges(connection);
    const sources = new Map<string, string>();
    const reads = new Map<string, string>();
    const seedTexts = new Map<string, string>();
    for (const node of graph.nodes.values()) {
      if (node.kind === 'seed') seedTexts.set(node.relation, await readFile(node.seed.path, 'utf8'));
      for (const source of node.sources) {
        if (sources.has(source) || !presentSources.has(source)) continue;
        sources.set(source, loadedState(generations, source) ?? (await sourceState(connection, source)));
      }
      for (const source of node.kind === 'model' && node.model.asOf === 'extraction' ? rawReadsOf(graph, node.relation) : []) {
        if (!reads.has(source) && presentSources.has(source)) reads.set(source, await sourceState(connection, source));
      }
    }
    return new BuildInputs(graph, sources, reads, macroFingerprints(graph.macros), seedTexts);
  }

  /**
   * The fingerprint of `relation`: its SQL and header, what each parent holds (`contentOf`:
   * its content signature, see `contentSignature`, or its own fingerprint), the raw tables it
   * reads and the macros it calls (each with the macros it calls in turn, so a changed macro
   * or setting rebuilds its callers and their descendants). A parent rebuilt to the same rows
   * therefore leaves its children as they are: a load that touches only columns identity
   * resolution does not read stops at `int_identity_ticketing_fields`. Ask once its parents are built.
   */
  fingerprint(relation: string, contentOf: (parent: string) => string): string {
    return remembered(this.fingerprints, relation, () => {
      const node = this.graph.nodes.get(relation)!;
      if (node.kind === 'seed') return hashOf(JSON.stringify([this.seedTexts.get(relation)!]));
      return hashOf(
        JSON.stringify([
          ...headerOf(node.model),
          ...node.parents.map((parent) => `${parent}=${contentOf(parent)}`),
          ...node.sources.map((source) => `${source}=${this.sources.get(source) ?? 'missing'}`),
          // Absent unless the model reads a time (its fingerprint is as before otherwise).
          ...(node.model.asOf === 'extraction' ? rawReadsOf(this.graph, relation).map((source) => `read ${source}=${this.reads.get(source) ?? 'missing'}`) : []),
          ...(node.model.asOf === 'build' ? [`clock ${this.buildId}`] : []),
          // Absent for a model without macros, so its fingerprint is as before macros existed.
          ...this.macroEntries(node.macros),
        ]),
      );
    });
  }

  /**
   * What `relation` computes, apart from the data it reads: its SQL and header, the macros it
   * calls and the content of the seeds it reads (rules kept as data, such as the identity
   * rules). An incremental model whose definition changed since its last build is rebuilt in
   * full: merging rows of the new logic into rows of the old one would mix two answers (dbt
   * leaves that to a `--full-refresh` someone has to remember after an upgrade).
   */
  definition(relation: string, contentOf: (parent: string) => string): string {
    return remembered(this.definitions, relation, () => {
      const node = this.graph.nodes.get(relation)!;
      if (node.kind === 'seed') return hashOf(this.seedTexts.get(relation)!);
      const seeds = node.parents.filter((parent) => this.graph.nodes.get(parent)?.kind === 'seed');
      // A lookup named in full_rebuild_on is part of what the model computes, as a seed is.
      const lookups = node.model.fullRebuildOn.map((parent) => `lookup ${parent}=${contentOf(parent)}`);
      return hashOf(JSON.stringify([...headerOf(node.model), ...this.macroEntries(node.macros), ...seeds.map((seed) => `seed ${seed}=${this.definition(seed, contentOf)}`), ...lookups]));
    });
  }

  /**
   * A macro build rewrote while it ran (the identity model, trained just before the model that
   * predicts with it): the fingerprints and definitions asked after this see its new text, and
   * so do the macros calling it, as the next build will (else an incremental model predicting
   * with it would be taken as redefined, and built in full, by the build after a training).
   * The macro must call no other macro.
   */
  replaceMacro(name: string, sql: string): void {
    const node = this.macroNodes.get(name);
    if (!node) return;
    this.macroNodes.set(name, { ...node, sql });
    for (const [macro, print] of macroFingerprints(this.macroNodes)) this.macros.set(macro, print);
  }

  private macroEntries(names: readonly string[]): string[] {
    return names.map((macro) => `macro ${macro}=${this.macros.get(macro) ?? 'missing'}`);
  }
}

/**
 * The raw tables `relation` reads, itself or through views: the tables whose newest read
 * a model with `as_of: extraction` follows (a table parent follows them in its own build).
 */
function rawReadsOf(graph: ModelGraph, relation: string): string[] {
  const node = graph.nodes.get(relation);
  if (node?.kind !== 'model') return [];
  const viaViews = node.parents.filter((parent) => {
    const parentNode = graph.nodes.get(parent);
    return parentNode?.kind === 'model' && parentNode.model.materialized === 'view';
  });
  return [...new Set([...node.sources, ...viaViews.flatMap((parent) => rawReadsOf(graph, parent))])].sort();
}

/**
 * A raw table as it was last read: its row count and newest `_extracted_at` (every load
 * stamps the rows it writes or sees with its run's time). The build's state of a raw table
 * is the generation its loads record instead (warehouse/changed-keys.ts), which moves only
 * when a load changed what it holds; this one, for a table no load recorded (an older
 * fanlake's) and for models with `as_of: extraction`, moves with every read.
 */
export async function sourceState(connection: DuckDBConnection, relation: string): Promise<string> {
  const table = relation.split('.').map(quoteIdent).join('.');
  const [row] = await queryRows(connection, `select count(*)::varchar || '|' || coalesce(max(${EXTRACTED_AT_COLUMN})::varchar, '') as state from ${table}`).catch(async () =>
    queryRows(connection, `select count(*)::varchar as state from ${table}`),
  );
  return String(row?.state ?? '');
}

/** A model's SQL and the header fields that change what it writes. */
function headerOf(model: ModelDefinition): string[] {
  return [model.sql, model.materialized, model.uniqueKey.join(',')];
}

function hashOf(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function remembered(known: Map<string, string>, key: string, compute: () => string): string {
  const value = known.get(key) ?? compute();
  known.set(key, value);
  return value;
}

/**
 * What a table holds, as its row count and the sum of its rows' hashes: the same rows in any
 * order give the same signature, a changed, added or removed row another one (a sum, unlike
 * an exclusive or, does not let two equal rows cancel out), in one scan.
 */
export async function contentSignature(connection: DuckDBConnection, relation: string): Promise<string> {
  const table = relation.split('.').map(quoteIdent).join('.');
  const [row] = await queryRows(connection, `select 'rows ' || count(*)::varchar || ' hash ' || coalesce(sum(hash(t))::varchar, '') as signature from ${table} as t`);
  return String(row!.signature);
}

/**
 * The last successful build of a model: its fingerprint, its definition and what its children
 * saw of it (its content signature, or its fingerprint); the last two are absent when it was
 * built by an older fanlake.
 */
export interface LastBuild {
  fingerprint: string;
  definition?: string;
  content?: string;
}

/**
 * What each built model holds as its children see it (its content signature, else its
 * fingerprint), without creating or moving anything: a reader's look at the build state, where
 * it is (warehouse/bookkeeping.ts).
 */
export async function builtContents(connection: DuckDBConnection): Promise<Map<string, string>> {
  const relation = await findBookkeeping(connection, 'build_state');
  if (relation === undefined) return new Map();
  const [schema, table] = relation.split('.');
  const [hasContent] = await queryRows(connection, `select count(*) as n from duckdb_columns() where database_name = current_database() and schema_name = $1 and table_name = $2 and column_name = 'content'`, [schema!, table!]);
  const content = Number(hasContent!.n) > 0 ? 'coalesce(content, fingerprint)' : 'fingerprint';
  const rows = await queryRows(connection, `select relation, ${content} as content from ${relation}`);
  return new Map(rows.map((row) => [String(row.relation), String(row.content)]));
}

/**
 * The last successful build of each model. Creates the table when missing, and carries over
 * the build state a warehouse of an earlier fanlake keeps elsewhere (warehouse/bookkeeping.ts);
 * call it outside a transaction.
 */
export async function readBuildState(connection: DuckDBConnection): Promise<Map<string, LastBuild>> {
  await ensureBookkeeping(connection);
  const rows = await queryRows(connection, `select relation, fingerprint, definition, content from ${BUILDS}`);
  return new Map(
    rows.map((row) => [
      String(row.relation),
      {
        fingerprint: String(row.fingerprint),
        ...(row.definition === null ? {} : { definition: String(row.definition) }),
        ...(row.content === null ? {} : { content: String(row.content) }),
      },
    ]),
  );
}

export async function recordBuild(connection: DuckDBConnection, relation: string, build: Required<LastBuild>): Promise<void> {
  await connection.run(
    `insert or replace into ${BUILDS} (relation, fingerprint, built_at, definition, content)
     values (${quoteLiteral(relation)}, ${quoteLiteral(build.fingerprint)}, now(), ${quoteLiteral(build.definition)}, ${quoteLiteral(build.content)})`,
  );
}

/** Forgets a model's last build, once its table or view is gone (drop-removed-models.ts). */
export async function forgetBuild(connection: DuckDBConnection, relation: string): Promise<void> {
  await connection.run(`delete from ${BUILDS} where relation = ${quoteLiteral(relation)}`);
}
