import type { EngagementData } from '../population/engagement/index.js';
import { ApiError } from './guard.js';

export const SEARCH_SOURCES = ['Any', 'SocialNetworkStreamName', 'CampaignAppName', 'PersonalDetails', 'Tag'] as const;
export type SearchSource = (typeof SEARCH_SOURCES)[number];

export interface SearchQuery {
  readonly source: SearchSource;
  /** `~` fuzzy (typo tolerant), `=` strict. */
  readonly operator: '~' | '=';
  readonly value: string;
}

/** Parses `<source><operator><value>`; a malformed query is a 400. Source names match case-insensitively. */
export function parseSearchQuery(text: string): SearchQuery {
  const found = /^([A-Za-z]+)([~=])(.*)$/s.exec(text);
  const source = found && SEARCH_SOURCES.find((s) => s.toLowerCase() === found[1]!.toLowerCase());
  if (!found || !source || found[3]!.trim() === '') {
    throw new ApiError(400, `searchQuery must have the form <source><operator><value> with source one of ${SEARCH_SOURCES.join(', ')} and operator ~ or =`);
  }
  return { source, operator: found[2] as '~' | '=', value: found[3]!.trim() };
}

/**
 * Whether a profile matches. The sources look at: PersonalDetails — names, e-mail, phone
 * and address; SocialNetworkStreamName — the networks and profile names of its people;
 * CampaignAppName — the campaign apps it gave consent in; Tag — its tags; Any — all.
 * `=` is a whole-value match ignoring case; `~` also accepts a substring, or a value or
 * word within one typo (two for values of 8+ characters; a swap of neighbours is one).
 */
export function profileMatches(data: EngagementData, profileIndex: number, query: SearchQuery): boolean {
  const values = searchableValues(data, profileIndex, query.source);
  const wanted = normalise(query.value);
  return values.some((value) => (query.operator === '=' ? normalise(value) === wanted : fuzzy(normalise(value), wanted)));
}

function searchableValues(data: EngagementData, profileIndex: number, source: SearchSource): string[] {
  const out: string[] = [];
  const all = source === 'Any';
  if (all || source === 'PersonalDetails') {
    const record = data.profiles.record(profileIndex);
    for (const field of ['firstName', 'lastName', 'fullName', 'displayName', 'email', 'phoneNumber', 'street', 'postalCode', 'city']) {
      const value = record[field];
      if (typeof value === 'string' && value.trim()) out.push(value);
    }
  }
  if (all || source === 'SocialNetworkStreamName') {
    const { peopleStart } = data.profiles;
    for (let g = peopleStart[profileIndex]!; g < peopleStart[profileIndex + 1]!; g++) {
      const person = data.people.record(g);
      for (const value of [person.network, person.profileName]) if (typeof value === 'string' && value) out.push(value);
    }
  }
  if (all || source === 'CampaignAppName') {
    const { consents } = data;
    for (let c = consents.start[profileIndex]!; c < consents.start[profileIndex + 1]!; c++) {
      out.push(data.campaignApps.app(consents.sourceApps[consents.sourceOf[c]!]!).name);
    }
  }
  if (all || source === 'Tag') out.push(...data.profiles.core(profileIndex).tags);
  return out;
}

function normalise(value: string): string {
  return value.trim().toLowerCase();
}

function fuzzy(value: string, wanted: string): boolean {
  if (value.includes(wanted)) return true;
  if (wanted.length < 4) return false;
  const allowed = wanted.length >= 8 ? 2 : 1;
  return [value, ...value.split(/[\s@.,:–-]+/)].some((candidate) => withinDistance(candidate, wanted, allowed));
}

/**
 * Edit distance <= `max`, where a swap of neighbouring letters counts as one typo
 * (optimal string alignment); stops early once a whole row exceeds `max`.
 */
export function withinDistance(a: string, b: string, max: number): boolean {
  if (Math.abs(a.length - b.length) > max) return false;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) distance = Math.min(distance, before[j - 2]! + 1);
      current[j] = distance;
      best = Math.min(best, distance);
    }
    if (best > max) return false;
    before = previous;
    previous = current;
  }
  return previous[b.length]! <= max;
}
