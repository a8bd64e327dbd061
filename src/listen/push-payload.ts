/**
 * What a push delivery says. The engagement document does not show the payload of a
 * notification, so the reader is tolerant: the validation token is found under
 * `subscriptions.validationToken`, `validationToken` or the query parameter of that name;
 * changed profiles under any of the configured paths (`listen.profileIdPaths`), a list
 * where one object was expected and one object where a list was expected both accepted,
 * and a payload that is a list read item by item. See docs/decisions.md "Push subscriptions".
 */

export { DEFAULT_PROFILE_ID_PATHS } from '../config/settings.js';

export type PushMessage =
  | { readonly kind: 'validation'; readonly token: string; readonly subscriptionId?: string }
  | { readonly kind: 'changes'; readonly ids: readonly string[] }
  /** Nothing we could read: recorded as a change of unknown profiles, which a full snapshot covers. */
  | { readonly kind: 'unreadable'; readonly why: string };

/** A profile id as the API writes them (a long, sent as a string or a number). */
const ID = /^[A-Za-z0-9_.:-]{1,100}$/;

/** The body as text, in the charset its content type names (iso-8859-2 for `#OBSOLETE-CHARSET` URLs), UTF-8 otherwise. */
export function decodeBody(body: Buffer, contentType: string | undefined): string {
  const charset = /charset\s*=\s*"?([\w.:-]+)"?/i.exec(contentType ?? '')?.[1]?.toLowerCase();
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

/** Reads one delivery: its JSON text and the query of the URL it was sent to. */
export function readPushMessage(text: string, query: URLSearchParams, idPaths: readonly string[]): PushMessage {
  const queryToken = query.get('validationToken');
  let value: unknown;
  try {
    value = text.trim() === '' ? undefined : JSON.parse(text);
  } catch {
    if (queryToken) return { kind: 'validation', token: queryToken };
    return { kind: 'unreadable', why: 'the body is not JSON' };
  }
  const validation = validationOf(value) ?? (queryToken ? { token: queryToken } : undefined);
  if (validation) return { kind: 'validation', ...validation };
  const ids = new Set<string>();
  for (const item of Array.isArray(value) ? value : [value]) {
    for (const path of idPaths) for (const id of valuesAt(item, path.split('.'))) if (isId(id)) ids.add(String(id));
  }
  if (ids.size === 0) return { kind: 'unreadable', why: `no profile id at ${idPaths.join(', ')}` };
  return { kind: 'changes', ids: [...ids] };
}

function validationOf(value: unknown): { token: string; subscriptionId?: string } | undefined {
  if (!isObject(value)) return undefined;
  for (const holder of [value.subscriptions, value]) {
    const candidate = Array.isArray(holder) ? holder[0] : holder;
    if (isObject(candidate) && typeof candidate.validationToken === 'string' && candidate.validationToken !== '') {
      const id = candidate.id ?? candidate.subscriptionId;
      return { token: candidate.validationToken, ...(isId(id) ? { subscriptionId: String(id) } : {}) };
    }
  }
  return undefined;
}

/** The values at a dotted path; a step ending in `[]` takes each element of a list (or the one value). */
function valuesAt(value: unknown, steps: readonly string[]): unknown[] {
  if (steps.length === 0) return Array.isArray(value) ? value : [value];
  const [step, ...rest] = steps as [string, ...string[]];
  const each = step.endsWith('[]');
  const key = each ? step.slice(0, -2) : step;
  const found: unknown[] = [];
  for (const holder of Array.isArray(value) ? value : [value]) {
    if (!isObject(holder) || !(key in holder)) continue;
    const next = holder[key];
    for (const item of each && Array.isArray(next) ? next : [next]) found.push(...valuesAt(item, rest));
  }
  return found;
}

function isId(value: unknown): value is string | number {
  return (typeof value === 'string' && ID.test(value)) || (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
