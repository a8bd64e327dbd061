import type { ClubProfile } from './club-profile.js';

/**
 * A second club on the same two APIs that differs the way clubs do: its own consent ids and
 * Norwegian texts (ticketing id 1 is SMS here, e-mail at fanlake), a partner consent on two
 * channels, another disabled text, an order status fanlake's defaults do not know
 * (AwaitingPayment), gift-card orders, season tickets sold with a price on the season's first
 * league match instead of a virtual match, its own channel spellings, and ApiApp people on a
 * network of its own with no `systemId`.
 */
export const NORDVIK: ClubProfile = {
  name: 'nordvik',
  homeTeam: [101, 'Nordvik IL'],
  venue: 'Nordvik Stadion',
  ticketingConsents: [
    { id: 1, name: 'SMS-varsler', description: 'Kampvarsler og tilbud fra klubben på SMS', share: 0.45, purpose: 'club_marketing', channels: ['sms'], displayName: 'SMS-varsler' },
    { id: 2, name: 'Nyhetsbrev på e-post', description: 'Nyheter og tilbud fra klubben på e-post', share: 0.7, purpose: 'club_marketing', channels: ['email'], displayName: 'Nyhetsbrev' },
    { id: 3, name: 'Varsler i appen', description: 'Varsler i klubbens app', share: 0.6, purpose: 'club_marketing', channels: ['push'], displayName: 'Appvarsler' },
    { id: 6, name: 'Tilbud fra partnere', description: 'Tilbud fra klubbens samarbeidspartnere på e-post og SMS', share: 0.4, purpose: 'partner_marketing', channels: ['email', 'sms'], displayName: 'Partnertilbud' },
    { id: 8, name: 'Tilpasset innhold', description: 'Bruk av kjøpshistorikk til å tilpasse innhold og tilbud', share: 0.75, purpose: 'profiling', channels: [], displayName: 'Tilpasset innhold' },
  ],
  consentTexts: [
    { id: 501, text: 'Ja, jeg vil motta klubbens nyhetsbrev på e-post.', isRequired: false, isEnabled: true, purpose: 'club_marketing', channels: ['email'], displayName: 'Nyhetsbrev på e-post' },
    { id: 502, text: 'Ja, send meg billettilbud og kampvarsler på SMS.', isRequired: false, isEnabled: true, purpose: 'club_marketing', channels: ['sms'], displayName: 'Billettilbud på SMS' },
    { id: 503, text: 'Ja, send meg varsler i appen om mål og kamphendelser ("push").', isRequired: false, isEnabled: true, purpose: 'club_marketing', channels: ['push'], displayName: 'Appvarsler' },
    { id: 504, text: 'Ja, klubbens samarbeidspartnere kan sende meg tilbud på SMS.', isRequired: false, isEnabled: true, purpose: 'partner_marketing', channels: ['sms'], displayName: 'Partnertilbud på SMS' },
    { id: 505, text: 'Ja, klubben kan sende meg tilbud fra partnere og sponsorer på e-post.', isRequired: false, isEnabled: false, purpose: 'partner_marketing', channels: ['email'], displayName: 'Partnertilbud på e-post' },
    { id: 506, text: 'Jeg godtar å motta bekreftelse på deltakelsen min på e-post.', isRequired: true, isEnabled: true, purpose: 'transactional', channels: ['email'], displayName: 'Bekreftelse på deltakelse' },
  ],
  orderStatuses: [
    { id: 1, name: 'Completed', group: 'paid', ticketWeight: 88, merchandiseWeight: 90 },
    { id: 2, name: 'Cancelled', group: 'cancelled', ticketWeight: 4, merchandiseWeight: 3 },
    { id: 3, name: 'Refunded', group: 'refunded', ticketWeight: 3, merchandiseWeight: 3 },
    { id: 4, name: 'AwaitingPayment', group: 'pending', ticketWeight: 5, merchandiseWeight: 4 },
  ],
  ticketOrderTypes: [
    { id: 6, name: 'Ticket', productLine: 'ticket', singleWeight: 97 },
    { id: 16, name: 'GiftCard', productLine: 'ticket', singleWeight: 3 },
    { id: 12, name: 'SeasonTicket', productLine: 'season_ticket', singleWeight: 0 },
  ],
  ticketChannels: [
    { name: 'Web', displayName: 'Nett', isApp: false },
    { name: 'App', displayName: 'App', isApp: true },
    { name: 'Billettkontor', displayName: 'Stadion', isApp: false },
    { name: 'Partner', displayName: 'Partner', isApp: false },
  ],
  merchandiseChannels: [
    { name: 'Nettbutikk', displayName: 'Nett', isApp: false, atStadium: false },
    { name: 'App', displayName: 'App', isApp: true, atStadium: false },
    { name: 'Stadion', displayName: 'Stadion', isApp: false, atStadium: true },
  ],
  seasonTicketSale: 'first_league_match',
  apiApps: {
    1: { network: 'fanlake-crm', systemId: null, externalIdRefersTo: 'ticketing_user' },
    2: { network: 'superoffice', systemId: null, externalIdRefersTo: 'crm_number' },
  },
};
