import type { ClubProfile } from './club-profile.js';

/**
 * The simulator's own club, as it has always been served: the conventions fanlake's default
 * mapping (`defaults/club/`) was written for.
 */
export const FANLAKE: ClubProfile = {
  name: 'fanlake',
  homeTeam: [1, 'Fanlake FK'],
  venue: 'Fanlake Arena',
  ticketingConsents: [
    { id: 1, name: 'Newsletter', description: 'News and offers from the club by e-mail', share: 0.7, purpose: 'club_marketing', channels: ['email'], displayName: 'Club newsletter' },
    { id: 2, name: 'SMS', description: 'Match reminders and offers by text message', share: 0.45, purpose: 'club_marketing', channels: ['sms'], displayName: 'Club SMS' },
    { id: 3, name: 'Push notifications', description: 'Notifications in the club app', share: 0.6, purpose: 'club_marketing', channels: ['push'], displayName: 'Club app notifications' },
    // Partner offers go out by e-mail and SMS, as engagement texts 204 and 205 say.
    { id: 4, name: 'Partner offers', description: 'Offers from the club\'s partners', share: 0.45, purpose: 'partner_marketing', channels: ['email', 'sms'], displayName: 'Partner offers' },
    { id: 5, name: 'Profiling', description: 'Use of purchase history to tailor offers', share: 0.8, purpose: 'profiling', channels: [], displayName: 'Profiling' },
  ],
  consentTexts: [
    { id: 201, text: 'Yes, I want to receive the club newsletter by e-mail.', isRequired: false, isEnabled: true, purpose: 'club_marketing', channels: ['email'], displayName: 'Club newsletter' },
    { id: 202, text: 'Yes, send me ticket offers and match reminders by SMS.', isRequired: false, isEnabled: true, purpose: 'club_marketing', channels: ['sms'], displayName: 'Club SMS' },
    { id: 203, text: 'Yes, send me push notifications in the app about goals and match events.', isRequired: false, isEnabled: true, purpose: 'club_marketing', channels: ['push'], displayName: 'Club app notifications' },
    { id: 204, text: 'Yes, the club may send me offers from its partners and sponsors by e-mail.', isRequired: false, isEnabled: true, purpose: 'partner_marketing', channels: ['email'], displayName: 'Partner offers by e-mail' },
    { id: 205, text: 'Yes, partners of the club may send me offers by SMS.', isRequired: false, isEnabled: false, purpose: 'partner_marketing', channels: ['sms'], displayName: 'Partner offers by SMS' },
    { id: 206, text: 'I agree to receive the confirmation of my participation by e-mail.', isRequired: true, isEnabled: true, purpose: 'transactional', channels: ['email'], displayName: 'Participation confirmation' },
  ],
  orderStatuses: [
    { id: 1, name: 'Completed', group: 'paid', ticketWeight: 93, merchandiseWeight: 94 },
    { id: 2, name: 'Cancelled', group: 'cancelled', ticketWeight: 4, merchandiseWeight: 3 },
    { id: 3, name: 'Refunded', group: 'refunded', ticketWeight: 3, merchandiseWeight: 3 },
  ],
  ticketOrderTypes: [
    { id: 6, name: 'Ticket', productLine: 'ticket', singleWeight: 1 },
    { id: 12, name: 'SeasonTicket', productLine: 'season_ticket', singleWeight: 0 },
  ],
  ticketChannels: [
    { name: 'web', displayName: 'Online', isApp: false },
    { name: 'app', displayName: 'App', isApp: true },
    { name: 'box office', displayName: 'Stadium', isApp: false },
    { name: 'partner', displayName: 'Partner', isApp: false },
  ],
  merchandiseChannels: [
    { name: 'Web shop', displayName: 'Online', isApp: false, atStadium: false },
    { name: 'App', displayName: 'App', isApp: true, atStadium: false },
    { name: 'Stadium kiosk', displayName: 'Stadium', isApp: false, atStadium: true },
  ],
  seasonTicketSale: 'virtual_match',
  apiApps: {
    1: { network: 'apiApp', systemId: 1, externalIdRefersTo: 'ticketing_user' },
    2: { network: 'apiApp', systemId: 2, externalIdRefersTo: 'crm_number' },
  },
};
