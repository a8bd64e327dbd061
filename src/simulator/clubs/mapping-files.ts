import type { ClubProfile } from './club-profile.js';

/**
 * The club's mapping files as fanlake's build reads them (a club folder, `FANLAKE_CLUB_DIR`,
 * or the defaults in `defaults/club/`), written from the profile's declared meanings: file name →
 * CSV text, header row first, quoted as RFC 4180 says (a field with a comma, a quote or a line
 * break in double quotes, a quote doubled), lines ending in LF like the seeds.
 */
export function clubMappingFiles(club: ClubProfile): Record<string, string> {
  return {
    'consent_meanings.csv': csv(
      ['system', 'consent_id', 'consent_name', 'purpose', 'channel', 'display_name'],
      [
        ...club.ticketingConsents.flatMap((consent) =>
          channelsOf(consent.channels).map((channel) => ['ticketing', consent.id, consent.name, consent.purpose, channel, consent.displayName])),
        ...club.consentTexts.flatMap((text) =>
          channelsOf(text.channels).map((channel) => ['engagement', text.id, text.text, text.purpose, channel, text.displayName])),
      ],
    ),
    'order_status_groups.csv': csv(
      ['order_status_id', 'order_status_name', 'status_group'],
      club.orderStatuses.map((status) => [status.id, status.name, status.group]),
    ),
    'order_type_groups.csv': csv(
      ['order_type_id', 'order_type_name', 'product_line'],
      [...club.ticketOrderTypes].sort((a, b) => a.id - b.id).map((type) => [type.id, type.name, type.productLine]),
    ),
    'sales_channels.csv': csv(
      ['resource', 'channel', 'display_name', 'is_app'],
      [
        ...club.ticketChannels.map((channel) => ['tickets', channel.name, channel.displayName, channel.isApp]),
        ...club.merchandiseChannels.map((channel) => ['merchandise', channel.name, channel.displayName, channel.isApp]),
      ],
    ),
  };
}

/** One row per channel; a consent without a channel has one row with the channel empty. */
function channelsOf(channels: readonly string[]): string[] {
  return channels.length === 0 ? [''] : [...channels];
}

function csv(header: string[], rows: (string | number | boolean)[][]): string {
  return [header, ...rows].map((row) => row.map((value) => field(String(value))).join(',')).join('\n') + '\n';
}

function field(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}
