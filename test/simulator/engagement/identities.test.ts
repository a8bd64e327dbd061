import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../../src/simulator/simulator.js';
import { startTestSimulator } from '../../helpers/simulator.js';
import { adminRows, engagementGet, v2 } from './engagement-client.js';

describe('engagement identities', () => {
  let sim: Simulator;
  let people: any[];
  beforeAll(async () => {
    sim = await startTestSimulator();
    people = await adminRows(sim, 'people');
  });
  afterAll(() => sim.close());

  it("reads ApiApp 1's identity by id and by externalId, which is its person's ticketing user id", async () => {
    const person = people.find((p) => p.systemId === 1);
    const byId = await engagementGet(sim, v2(sim, `identities/${person.id}`));
    expect(byId.status).toBe(200);
    expect(byId.body).toMatchObject({ id: person.id, externalId: person.externalId, customerProfileId: person.customerProfileId });
    expect(byId.body.phone === '' || byId.body.phone.startsWith('tel:+')).toBe(true);
    const byExternalId = await engagementGet(sim, v2(sim, `identities?externalId=${person.externalId}`));
    expect(byExternalId.status).toBe(200);
    expect(byExternalId.text).toBe(byId.text);

    const truth = [...sim.truth()];
    const personOf = (system: string, recordId: string) => truth.find((t) => t.system === system && t.recordId === recordId)?.personId;
    expect(personOf('ticketing_user', person.externalId)).toBeDefined();
    expect(personOf('ticketing_user', person.externalId)).toBe(personOf('engagement_person', person.id));
  });

  it("does not find ApiApp 2's identity by externalId, though it reads it by id", async () => {
    const crm = people.find((p) => p.systemId === 2);
    expect(crm.externalId).toMatch(/^crm-\d+$/);
    expect((await engagementGet(sim, v2(sim, `identities/${crm.id}`))).status).toBe(200);
    const byExternalId = await engagementGet(sim, v2(sim, `identities?externalId=${crm.externalId}`));
    expect(byExternalId.status).toBe(404);
    expect(byExternalId.body.message).toMatch(/^Could not find Identity:/);
  });

  it('answers the documented 404 and 400 messages', async () => {
    const notAnIdentity = people.find((p) => p.systemId === null);
    for (const path of [`identities/${notAnIdentity.id}`, 'identities/12', 'identities?externalId=1', 'identities?externalId=crm-1']) {
      const answer = await engagementGet(sim, v2(sim, path));
      expect(answer.status, path).toBe(404);
      expect(answer.body.message, path).toMatch(/^Could not find Identity:/);
    }
    for (const path of ['identities?externalId=', 'identities?externalId=%20', 'identities']) {
      const answer = await engagementGet(sim, v2(sim, path));
      expect(answer.status, path).toBe(400);
      expect(answer.body.message, path).toMatch(/^Provided ExternalId/);
    }
  });

  it('has ApiApp 1 identities for a share of the profiles whose person has tickets', async () => {
    const app1 = people.filter((p) => p.systemId === 1).length;
    const profiles = new Set(people.map((p) => p.customerProfileId)).size;
    expect(app1 / profiles).toBeGreaterThan(0.15);
    expect(app1 / profiles).toBeLessThan(0.35);
    expect(people.filter((p) => p.systemId === 2).length).toBeGreaterThan(0);
  });

  it('lists on the admin surface exactly the identities GET by id serves: the people whose network is apiApp', async () => {
    const identities = await adminRows(sim, 'identities');
    const apiAppPeople = people.filter((p) => p.network === 'apiApp');
    expect(identities.map((identity) => identity.id).sort()).toEqual(apiAppPeople.map((p) => p.id).sort());
    expect(apiAppPeople.every((p) => p.systemId !== null)).toBe(true);
    for (const identity of identities.slice(0, 20)) {
      const byId = await engagementGet(sim, v2(sim, `identities/${identity.id}`));
      expect(byId.body).toEqual(identity);
    }
    // The club's custom profile fields: a flat object, present on some identities.
    expect(identities.filter((identity) => 'favouritePlayer' in identity.extendedProperties).length).toBeGreaterThan(0);
    expect(identities.every((identity) => typeof identity.extendedProperties === 'object' && !Array.isArray(identity.extendedProperties))).toBe(true);
  });
});
