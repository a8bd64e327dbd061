import { describe, expect, it } from 'vitest';
import { suggestConsent, suggestProductLine, suggestSalesChannel, suggestStatusGroup } from '../../../src/models/club/suggest-meaning.js';

/** What `doctor --write` suggests from a code's own words, English and Norwegian alike. */
describe('suggestions from words', () => {
  it.each([
    ['Newsletter', 'club_marketing', ['email']],
    ['Nyhetsbrev på e-post', 'club_marketing', ['email']],
    ['SMS-varsler', 'club_marketing', ['sms']],
    ['Push notifications', 'club_marketing', ['push']],
    ['Varsler i appen', 'club_marketing', ['push']],
    ['Ja, klubbens samarbeidspartnere kan sende meg tilbud på SMS.', 'partner_marketing', ['sms']],
    ['Yes, the club may send me offers from its partners and sponsors by e-mail.', 'partner_marketing', ['email']],
    ['Jeg godtar å motta bekreftelse på deltakelsen min på e-post.', 'transactional', ['email']],
    ['Tilpasset innhold', 'profiling', []],
    // the words name no channel: the club must say which
    ['Tilbud fra partnere', 'partner_marketing', []],
    ['Medlemsfordeler', '', []],
  ])('%s: %s %j', (text, purpose, channels) => {
    expect(suggestConsent(text)).toEqual({ purpose, channels });
  });

  it.each([
    ['Completed', 'paid'], ['Betalt', 'paid'], ['Cancelled', 'cancelled'], ['Kansellert', 'cancelled'],
    ['Refunded', 'refunded'], ['Refundert', 'refunded'], ['AwaitingPayment', 'pending'], ['Venter på betaling', 'pending'], ['Arkivert', 'other'],
  ])('order status %s: %s', (name, group) => {
    expect(suggestStatusGroup(name)).toBe(group);
  });

  it('order types and sales channels', () => {
    expect(suggestProductLine('SeasonTicket')).toBe('season_ticket');
    expect(suggestProductLine('Sesongkort')).toBe('season_ticket');
    expect(suggestProductLine('GiftCard')).toBe('ticket');
    expect(suggestSalesChannel('App')).toEqual({ display: 'App', app: true });
    expect(suggestSalesChannel('Nettbutikk')).toEqual({ display: 'Online', app: false });
    expect(suggestSalesChannel('Billettkontor')).toEqual({ display: 'Stadium', app: false });
    expect(suggestSalesChannel('Telefonsalg')).toEqual({ display: 'Telefonsalg', app: false });
  });
});
