import { errorMessage } from '../../core/errors.js';
import { type SourceConnection, endpointUrl } from '../../sources/connection.js';
import { type HttpClient, HttpError } from '../http/index.js';
import { type IndexPage, listAllPages } from '../paging/page-index-lister.js';
import type { ExtractProgress } from '../progress.js';
import { ResourceSink, type RunContext } from '../resource-sink.js';
import { type ResourceResult, skippedResult } from '../resource-result.js';
import { ENGAGEMENT_SINKS, type EngagementResource, USER_SCOPED } from './engagement-resources.js';
import { WorkQueue } from './work-queue.js';

export interface EngagementRun extends RunContext {
  readonly connection: SourceConnection;
  readonly client: HttpClient;
  readonly progress: ExtractProgress;
  readonly pageSize: number;
  readonly concurrency: number;
  readonly contextRoots: readonly string[];
  readonly demographicValues: readonly string[];
  readonly loyalty: boolean;
  /** Resources asked for; all when absent. */
  readonly only?: readonly string[];
}

type Sinks = Record<string, ResourceSink>;

/** What the fan-outs need of a customer profile. */
interface ProfileTarget {
  readonly profileId: string;
  readonly personId?: string;
  readonly email?: string;
  readonly phone?: string;
}
type Json = Record<string, unknown>;

/** What a group of resources read: child requests that failed after their retries, by id. */
interface GroupOutcome {
  readonly failedChildren: string[];
  readonly requests: number;
}

/** Documented "nothing here" answers are results, not failures. */
const NOTHING_HERE = [404];

/**
 * Takes a full snapshot of the engagement API: lists paged by pageIndex, members split off
 * their responses (`linked`), and fan-outs per customer profile or leaderboard. Each group
 * of resources commits together; a child request that still fails after its retries is
 * reported by id while the rest lands (the run is then partial and not a snapshot).
 */
export async function extractEngagement(run: EngagementRun): Promise<ResourceResult[]> {
  const wanted = (names: EngagementResource[]) => !run.only || names.some((name) => run.only!.includes(name));
  const results: ResourceResult[] = [];

  const get = async (path: string, query: Record<string, string | number | undefined> = {}, context: Json = {}): Promise<unknown> => {
    const response = await run.client.getJson(endpointUrl(run.connection.baseUrl, path, query), {
      headers: { authorization: run.connection.authorization, accept: 'application/vnd.api+json, application/json' },
      context: { source: 'engagement', ...context },
      credentialHint: run.connection.credentialHint,
      acceptStatuses: NOTHING_HERE,
    });
    return response.status === 404 ? undefined : response.body;
  };

  const listInto = async (path: string, itemsKey: string, sinks: Sinks, primary: string, linked: Record<string, string>, onItems?: (items: Json[], body: Json) => void, query: Json = {}) => {
    let requests = 0;
    await listAllPages({
      pageSize: run.pageSize,
      wave: run.concurrency,
      fetchPage: async (pageIndex) => {
        requests++;
        const body = ((await get(path, { ...(query as Record<string, string>), pageIndex, pageSize: run.pageSize }, { resource: primary, page: pageIndex })) ?? {}) as Json;
        return { items: asArray(body[itemsKey]), body };
      },
      onPage: async ({ items, body }: IndexPage) => {
        await accept(sinks[primary]!, items);
        const members = (body.linked ?? {}) as Json;
        for (const [member, resource] of Object.entries(linked)) await accept(sinks[resource]!, asArray(members[member]));
        onItems?.(items as Json[], body);
      },
    });
    return requests;
  };

  const accept = async (sink: ResourceSink, items: readonly unknown[]) => {
    await sink.accept(items);
    run.progress.page(`engagement.${sink.spec.name}`, items.length);
  };

  const group = async (names: EngagementResource[], read: (sinks: Sinks) => Promise<GroupOutcome>, dedupe: EngagementResource[] = []): Promise<boolean> => {
    const started = performance.now();
    const sinks: Sinks = Object.fromEntries(names.map((name) => [name, new ResourceSink(run, ENGAGEMENT_SINKS[name], { dedupe: dedupe.includes(name) })]));
    for (const name of names) run.progress.started(`engagement.${name}`);
    const finish = (name: string, result: Omit<ResourceResult, 'source' | 'resource' | 'seconds' | 'retries'>) => {
      const full: ResourceResult = { source: 'engagement', resource: name, seconds: (performance.now() - started) / 1000, retries: run.progress.retriesOf(`engagement.${name}`), ...result };
      run.progress.finished(`engagement.${name}`, full);
      results.push(full);
    };
    try {
      const outcome = await read(sinks);
      const snapshot = outcome.failedChildren.length === 0;
      const messages = snapshot ? [] : [`${outcome.failedChildren.length} child requests failed after retries: ${outcome.failedChildren.slice(0, 10).join(', ')}${outcome.failedChildren.length > 10 ? ', ...' : ''}`];
      for (const [name, sink] of Object.entries(sinks)) {
        const written = await sink.commit({ snapshot });
        const notes = written.quarantined > 0 ? [`${written.quarantined} records quarantined (see ${sink.dir}/quarantine.ndjson)`] : [];
        finish(name, { status: snapshot ? 'ok' : 'partial', rows: written.rows, files: written.files.length, quarantined: written.quarantined, requests: name === names[0] ? outcome.requests : 0, messages: [...messages, ...notes] });
      }
      return true;
    } catch (error) {
      await Promise.all(Object.values(sinks).map((sink) => sink.abort()));
      const disabled = error instanceof HttpError && error.status === 403;
      for (const name of names) {
        finish(name, disabled
          ? { status: 'skipped', rows: 0, files: 0, quarantined: 0, requests: 0, messages: ['not enabled for this organization (the API answered 403)'] }
          : { status: 'failed', rows: 0, files: 0, quarantined: 0, requests: 0, messages: [errorMessage(error)] });
      }
      return false;
    }
  };

  /** Runs one child request per item, each retried by the client; failures are collected by id. */
  const fanOut = async <T>(items: WorkQueue<T>, idOf: (item: T) => string, read: (item: T) => Promise<number>): Promise<GroupOutcome> => {
    const failedChildren: string[] = [];
    let requests = 0;
    // A fixed set of workers pulls the items: no promise per child up front, so a fan-out
    // over 150,000 profiles costs as little memory as one over 15.
    const worker = async () => {
      for (let item = await items.next(); item !== undefined; item = await items.next()) {
        try {
          const spent = await read(item);
          requests += spent;
        } catch (error) {
          if (error instanceof HttpError && error.status === 403) throw error;
          // The first few say why; the rest are counted by id.
          failedChildren.push(failedChildren.length < 3 ? `${idOf(item)} (${errorMessage(error)})` : idOf(item));
        }
      }
    };
    await Promise.all(Array.from({ length: run.concurrency * 2 }, worker));
    return { failedChildren, requests };
  };

  // Profiles feed the consents and loyalty fan-outs as their pages arrive.
  const consentTargets = new WorkQueue<ProfileTarget>();
  const loyaltyTargets = new WorkQueue<ProfileTarget>();
  const tasks: Promise<unknown>[] = [];
  if (wanted(['customer_profiles', 'people', 'consents', 'consent_texts', 'consent_sources', 'loyalty_summaries'])) {
    tasks.push(
      group(['customer_profiles', 'people'], async (sinks) => {
        try {
          const requests = await listInto('/customerinsights/customerprofiles', 'customerProfiles', sinks, 'customer_profiles', { people: 'people' }, (profiles) => {
            for (const profile of profiles) {
              const people = asArray((profile.links as Json | undefined)?.people);
              const target = { profileId: String(profile.id), personId: people.length ? String(people[0]) : undefined, email: text(profile.email), phone: text(profile.phoneNumber) };
              if (target.personId) consentTargets.push(target);
              if (run.loyalty && (target.email || rfc3966(target.phone))) loyaltyTargets.push(target);
            }
          });
          consentTargets.close();
          loyaltyTargets.close();
          return { failedChildren: [], requests };
        } catch (error) {
          consentTargets.fail(error);
          loyaltyTargets.fail(error);
          throw error;
        }
      }),
    );
  }
  if (wanted(['consents', 'consent_texts', 'consent_sources'])) {
    tasks.push(
      group(['consents', 'consent_texts', 'consent_sources'], (sinks) =>
        fanOut(consentTargets, (t) => `identity ${t.personId} (profile ${t.profileId})`, (t) =>
          listInto(`/customerinsights/customerprofiles/${t.personId}/consents`, 'consents', sinks, 'consents', { consentTexts: 'consent_texts', consentSources: 'consent_sources' }, undefined, { includeRevoked: 'true' }),
        ),
      ['consent_texts', 'consent_sources']),
    );
  }
  if (wanted(['loyalty_summaries'])) {
    if (!run.loyalty) results.push(skippedResult('engagement', 'loyalty_summaries', 'opt-in fan-out, one request per profile: set FANLAKE_ENGAGEMENT_LOYALTY=true'));
    else {
      tasks.push(
        group(['loyalty_summaries'], (sinks) =>
          fanOut(loyaltyTargets, (t) => `profile ${t.profileId}`, async (t) => {
            const query = t.email ? { type: 'email', value: t.email.trim() } : { type: 'phone', value: rfc3966(t.phone)! };
            const summary = await get('/mypage/loyaltysummary', query, { resource: 'loyalty_summaries' });
            if (summary && typeof summary === 'object') await accept(sinks.loyalty_summaries!, [{ customerProfileId: t.profileId, ...(summary as Json) }]);
            return 1;
          }),
        ),
      );
    }
  }

  if (wanted(['campaign_apps', 'campaign_app_authentication_options'])) {
    tasks.push(group(['campaign_apps', 'campaign_app_authentication_options'], async (sinks) => ({
      failedChildren: [],
      requests: await listInto('/campaign/campaignapps', 'campaignApps', sinks, 'campaign_apps', { campaignAppAuthenticationOptions: 'campaign_app_authentication_options' }),
    }), ['campaign_app_authentication_options']));
  }
  if (wanted(['participants'])) {
    tasks.push(group(['participants'], async (sinks) => ({ failedChildren: [], requests: await listInto('/campaign/participants', 'campaignAppParticipants', sinks, 'participants', {}) })));
  }
  if (wanted(['subscriptions'])) {
    tasks.push(group(['subscriptions'], async (sinks) => {
      const body = (await get('/pushservice/subscriptions', {}, { resource: 'subscriptions' })) as Json | undefined;
      await accept(sinks.subscriptions!, asArray(body?.subscriptions));
      return { failedChildren: [], requests: 1 };
    }));
  }
  if (wanted(['leaderboard_seasons', 'top_positions'])) {
    tasks.push(group(['leaderboard_seasons', 'top_positions'], async (sinks) => {
      // 404 "LeaderboardSeason not found": no season is configured, an empty result.
      const seasons = asArray(await get('/mypage/leaderboards/leaderboardseasons', {}, { resource: 'leaderboard_seasons' })) as Json[];
      await accept(sinks.leaderboard_seasons!, seasons);
      const boards = seasons.flatMap((season) => {
        const intervals = asArray(season.intervalGroupings).flatMap((g) => asArray((g as Json).intervals)).map((i) => String((i as Json).id));
        const demographic = season.demographicFieldId ? run.demographicValues : [];
        return [undefined, ...intervals].flatMap((intervalId) => [undefined, ...demographic].map((value) => ({ seasonId: String(season.id), intervalId, value })));
      });
      const outcome = await fanOut(WorkQueue.of(boards), (b) => `season ${b.seasonId} interval ${b.intervalId ?? '-'} demographic ${b.value ?? '-'}`, async (board) => {
        const positions = asArray(await get('/mypage/leaderboards/toppositions', { leaderboardseasonid: board.seasonId, intervalId: board.intervalId, demographicValue: board.value, positionCount: 100 }, { resource: 'top_positions' }));
        await accept(sinks.top_positions!, positions.map((p) => ({ season_id: board.seasonId, interval_id: board.intervalId ?? null, demographic_value: board.value ?? null, ...(p as Json) })));
        return 1;
      });
      return { failedChildren: outcome.failedChildren, requests: outcome.requests + 1 };
    }));
  }
  if (wanted(['context_nodes'])) {
    if (run.contextRoots.length === 0) results.push(skippedResult('engagement', 'context_nodes', 'no context root ids configured (FANLAKE_ENGAGEMENT_CONTEXT_ROOTS); the API cannot list them'));
    else {
      tasks.push(group(['context_nodes'], (sinks) =>
        fanOut(WorkQueue.of(run.contextRoots), (root) => `context ${root}`, async (root) => {
          const tree = await get(`/mypage/contexts/${encodeURIComponent(root)}`, {}, { resource: 'context_nodes' });
          if (tree && typeof tree === 'object') await accept(sinks.context_nodes!, flattenTree(tree as Json, root));
          return 1;
        }),
      ));
    }
  }
  for (const [name, why] of Object.entries(USER_SCOPED)) if (!run.only) results.push(skippedResult('engagement', name, why));

  await Promise.all(tasks);
  return results;
}

/** One row per node of a context tree, with its parent's and root's ids. */
function flattenTree(node: Json, rootId: string, parentId: string | null = null): Json[] {
  const { children, parent: _parent, ...fields } = node;
  const id = String(node.id);
  return [{ ...fields, parent_id: parentId, root_id: rootId }, ...asArray(children).flatMap((child) => flattenTree(child as Json, rootId, id))];
}

function asArray(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  return value === undefined || value === null ? [] : [value];
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** A phone in RFC 3966 form when it is already international; other forms are not guessed here. */
function rfc3966(phone: string | undefined): string | undefined {
  if (!phone) return undefined;
  const digits = phone.replace(/^tel:/, '').replace(/[\s\-.()]/g, '');
  const international = digits.startsWith('+') ? digits.slice(1) : digits.startsWith('00') ? digits.slice(2) : undefined;
  return international && /^\d{6,15}$/.test(international) ? `tel:+${international}` : undefined;
}
