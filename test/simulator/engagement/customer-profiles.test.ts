import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../../src/simulator/simulator.js';
import { withinDistance } from '../../../src/simulator/engagement/profile-search.js';
import { startTestSimulator } from '../../helpers/simulator.js';
import { adminRows, engagementGet, v2 } from './engagement-client.js';

const PROFILES = 'customerinsights/customerprofiles';

describe('engagement customer profiles', () => {
  let sim: Simulator;
  let profiles: any[];
  beforeAll(async () => {
    sim = await startTestSimulator();
    profiles = await adminRows(sim, 'customer_profiles');
  });
  afterAll(() => sim.close());

  const search = async (query: string) => {
    const answer = await engagementGet(sim, v2(sim, `${PROFILES}?pageSize=1000&searchQuery=${encodeURIComponent(query)}`));
    expect(answer.status, query).toBe(200);
    return answer.body.customerProfiles as any[];
  };

  it('wraps a page in {links, linked: {people}, customerProfiles} and links every person', async () => {
    const { status, contentType, body } = await engagementGet(sim, v2(sim, `${PROFILES}?pageSize=20`));
    expect(status).toBe(200);
    expect(contentType).toMatch(/^application\/vnd\.api\+json/);
    expect(Object.keys(body).sort()).toEqual(['customerProfiles', 'linked', 'links']);
    expect(body.customerProfiles).toHaveLength(20);
    const linkedIds = body.linked.people.map((p: any) => p.id);
    const linkIds = body.customerProfiles.flatMap((p: any) => p.links.people);
    expect(new Set(linkedIds)).toEqual(new Set(linkIds));
    for (const profile of body.customerProfiles) {
      expect(profile).toMatchObject({ type: 'customerProfiles', tenantId: 4711 });
      expect(typeof profile.id).toBe('string');
      expect(typeof JSON.parse(profile.customAuthenticationFields)).toBe('object');
      expect(profile.displayName).toBe(profile.fullName || `${profile.firstName} ${profile.lastName}`.trim());
      for (const id of profile.links.people) {
        expect(body.linked.people.find((p: any) => p.id === id).customerProfileId).toBe(Number(profile.id));
      }
    }
    const person = body.linked.people[0];
    expect(Object.keys(person)).toEqual([
      'id', 'type', 'externalId', 'network', 'customData', 'profileUrl', 'profileName', 'firstName', 'lastName', 'fullName',
      'displayName', 'gender', 'dateOfBirth', 'isAdult', 'location', 'profileImageUrl', 'customerProfileId', 'emailAddress',
      'tenantId', 'isDisabled', 'systemId', 'language', 'country', 'customAuthenticationFields',
    ]);
  });

  it('pages from zero with 50 profiles by default, and the pages cover every profile once', async () => {
    const defaults = await engagementGet(sim, v2(sim, PROFILES));
    const explicit = await engagementGet(sim, v2(sim, `${PROFILES}?pageIndex=0&pageSize=50`));
    expect(defaults.body.customerProfiles).toHaveLength(50);
    expect(defaults.text).toBe(explicit.text);
    const seen: string[] = [];
    for (let pageIndex = 0; ; pageIndex++) {
      const page = (await engagementGet(sim, v2(sim, `${PROFILES}?pageIndex=${pageIndex}&pageSize=70`))).body.customerProfiles;
      seen.push(...page.map((p: any) => p.id));
      if (page.length < 70) break;
    }
    expect(seen).toEqual(profiles.map((p) => p.id));
    expect((await engagementGet(sim, v2(sim, `${PROFILES}?pageIndex=99&pageSize=50`))).body.customerProfiles).toEqual([]);
    for (const bad of ['pageSize=0', 'pageIndex=-1', 'pageSize=x']) {
      expect((await engagementGet(sim, v2(sim, `${PROFILES}?${bad}`))).status, bad).toBe(400);
    }
  });

  it('has e-mails the way people typed them: personal, work, or none', async () => {
    const emails = profiles.map((p) => p.email);
    const missing = emails.filter((e) => !e).length / emails.length;
    expect(missing).toBeGreaterThan(0.04);
    expect(missing).toBeLessThan(0.25);
    expect(emails.some((e) => e && e !== e.trim().toLowerCase())).toBe(true);
    expect(emails.some((e) => /@(equinor\.com|dnb\.no|telenor\.no|kommune\.no|nav\.no|sykehuset\.no|posten\.no|ntnu\.no)\s*$/i.test(e ?? ''))).toBe(true);
  });

  it('searches strictly with = and typo-tolerantly with ~', async () => {
    const target = profiles.find((p) => /^[A-Za-z]{5,7}$/.test(p.lastName))!;
    const exact = await search(`PersonalDetails=${target.lastName}`);
    expect(exact.map((p) => p.id)).toContain(target.id);
    for (const p of exact) expect(JSON.stringify(p).toLowerCase()).toContain(target.lastName.toLowerCase());
    const { lastName } = target;
    const swapped = `${lastName.slice(0, 2)}${lastName[3]}${lastName[2]}${lastName.slice(4)}`;
    const replaced = `${lastName.slice(0, 3)}q${lastName.slice(4)}`;
    for (const typo of [swapped, replaced]) {
      expect((await search(`PersonalDetails~${typo}`)).map((p) => p.id), typo).toContain(target.id);
      expect((await search(`PersonalDetails=${typo}`)).map((p) => p.id), typo).not.toContain(target.id);
    }
    expect((await search(`PersonalDetails~${lastName}qqq`)).map((p) => p.id)).not.toContain(target.id);
    expect((await search(`personaldetails~${target.lastName.slice(0, 4).toUpperCase()}`)).map((p) => p.id)).toContain(target.id);

    const social = await search('SocialNetworkStreamName=facebook');
    expect(social.length).toBeGreaterThan(0);
    const { body } = await engagementGet(sim, v2(sim, `${PROFILES}?pageSize=1000&searchQuery=SocialNetworkStreamName%3Dfacebook`));
    for (const profile of social) {
      expect(body.linked.people.some((p: any) => p.network === 'facebook' && profile.links.people.includes(p.id))).toBe(true);
    }

    const tagged = await search('Tag=vip');
    expect(tagged.length).toBeGreaterThan(0);
    expect(tagged.length).toBeLessThan(profiles.length);

    const consent = (await adminRows(sim, 'consents'))[0];
    const source = (await adminRows(sim, 'consent_sources')).find((s) => s.id === consent.links.consentSource);
    expect((await search(`CampaignAppName=${source.title}`)).map((p) => p.id)).toContain(String(consent.customerProfileId));
    expect((await search(`Any~${target.lastName}`)).map((p) => p.id)).toContain(target.id);
  });

  it('counts a swap of neighbouring letters as one typo', () => {
    expect(withinDistance('hansen', 'hnasen', 1)).toBe(true);
    expect(withinDistance('hansen', 'hanson', 1)).toBe(true);
    expect(withinDistance('hansen', 'hnason', 1)).toBe(false);
    expect(withinDistance('hansen', 'hnason', 2)).toBe(true);
  });

  it('answers 400 to a malformed searchQuery', async () => {
    for (const query of ['Nobody~x', 'PersonalDetails', 'PersonalDetails>x', 'Any=', '~hansen']) {
      const answer = await engagementGet(sim, v2(sim, `${PROFILES}?searchQuery=${encodeURIComponent(query)}`));
      expect(answer.status, query).toBe(400);
      expect(answer.body.message).toMatch(/searchQuery/);
    }
  });

  it('reads one profile in the same wrapper, and 404 for an unknown id', async () => {
    const target = profiles[7];
    const { status, body } = await engagementGet(sim, v2(sim, `${PROFILES}/${target.id}`));
    expect(status).toBe(200);
    expect(body.customerProfiles).toEqual(target);
    expect(body.linked.people.map((p: any) => p.id)).toEqual(target.links.people);
    expect(body.links).toBeDefined();
    const missing = await engagementGet(sim, v2(sim, `${PROFILES}/999`));
    expect(missing.status).toBe(404);
    expect(missing.body.message).toMatch(/^Customer Profile with id 999/);
  });
});

describe('engagement consents', () => {
  let sim: Simulator;
  let consents: any[];
  beforeAll(async () => {
    sim = await startTestSimulator();
    consents = await adminRows(sim, 'consents');
  });
  afterAll(() => sim.close());

  const consentsOf = (identityId: string | number, query = '') =>
    engagementGet(sim, v2(sim, `customerinsights/customerprofiles/${identityId}/consents${query}`));

  it('lists the consents of the profile an identity belongs to, revoked ones by default', async () => {
    const revoked = consents.find((c) => c.isRevoked);
    const ofProfile = consents.filter((c) => c.customerProfileId === revoked.customerProfileId);
    const profile = (await engagementGet(sim, v2(sim, `customerinsights/customerprofiles/${revoked.customerProfileId}`))).body.customerProfiles;
    for (const identityId of profile.links.people) {
      const { status, contentType, body } = await consentsOf(identityId);
      expect(status).toBe(200);
      expect(contentType).toMatch(/vnd\.api\+json/);
      expect(Object.keys(body).sort()).toEqual(['consents', 'linked']);
      expect(body.consents).toEqual(ofProfile);
    }
    const withoutRevoked = (await consentsOf(profile.links.people[0], '?includeRevoked=false')).body.consents;
    expect(withoutRevoked).toEqual(ofProfile.filter((c) => !c.isRevoked));
    expect((await consentsOf(profile.links.people[0], '?includeRevoked=true')).body.consents).toEqual(ofProfile);
    expect(revoked.revokedDateTime).toEqual(expect.any(String));
    expect((await consentsOf(profile.links.people[0], '?includeRevoked=maybe')).status).toBe(400);
  });

  it('links every consent to a text and a source under linked, and nothing else', async () => {
    const several = consents.find((c) => consents.filter((o) => o.customerProfileId === c.customerProfileId).length >= 3);
    const { body } = await consentsOf(several.identityId);
    const texts = body.linked.consentTexts.map((t: any) => t.id).sort();
    const sources = body.linked.consentSources.map((s: any) => s.id).sort();
    expect(texts).toEqual([...new Set(body.consents.map((c: any) => c.links.consentText))].sort());
    expect(sources).toEqual([...new Set(body.consents.map((c: any) => c.links.consentSource))].sort());
    for (const source of body.linked.consentSources) {
      expect(source.id).toBe(`${source.sourceId}_${source.sourceType}`);
      expect(source.campaignAppId).toBe(Number(source.sourceId));
    }
    for (const text of body.linked.consentTexts) expect(text).toMatchObject({ type: 'consentTexts', text: expect.any(String), isRequired: expect.any(Boolean) });
  });

  it('pages consents from zero', async () => {
    const several = consents.find((c) => consents.filter((o) => o.customerProfileId === c.customerProfileId).length >= 3);
    const all = (await consentsOf(several.identityId)).body.consents;
    expect((await consentsOf(several.identityId, '?pageSize=1&pageIndex=0')).body.consents).toEqual([all[0]]);
    expect((await consentsOf(several.identityId, '?pageSize=1&pageIndex=1')).body.consents).toEqual([all[1]]);
    expect((await consentsOf(several.identityId, '?pageSize=2&pageIndex=5')).body.consents).toEqual([]);
  });

  it('answers 404 for an identity that does not exist', async () => {
    const answer = await consentsOf(42);
    expect(answer.status).toBe(404);
    expect(answer.body.message).toMatch(/^Could not find Identity:/);
  });
});

describe('engagement cmtoken', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startTestSimulator();
  });
  afterAll(() => sim.close());

  it('exchanges a demo token for a plain-text user token, and refuses others', async () => {
    const ok = await engagementGet(sim, v2(sim, 'customerinsights/cmtoken?provider=demo&token=demo-1000003'));
    expect(ok.status).toBe(200);
    expect(ok.contentType).toMatch(/^text\/plain/);
    expect(ok.text).toBe(sim.userToken('1000003'));
    for (const [query, message] of [
      ['provider=facebook&token=demo-1000003', /^Provider facebook is not supported/],
      ['provider=demo&token=demo-999', /^Token is not valid/],
      ['provider=demo&token=nonsense', /^Token is not valid/],
      ['provider=demo', /required/],
    ] as const) {
      const answer = await engagementGet(sim, v2(sim, `customerinsights/cmtoken?${query}`));
      expect(answer.status, query).toBe(400);
      expect(answer.body.message, query).toMatch(message);
    }
  });
});
