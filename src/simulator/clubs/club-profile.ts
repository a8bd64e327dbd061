/**
 * What a club's ticketing and engagement systems call things, and what those things truly
 * mean. The generators serve the codes and texts; the meanings (purpose, channel, status
 * group, product line, whether a channel is the app) are never served: they are the ground
 * truth tests compare fanlake's figures with, and what the club's mapping files are written
 * from (`clubMappingFiles`).
 */

export const CONSENT_PURPOSES = ['club_marketing', 'partner_marketing', 'profiling', 'transactional'] as const;
export type ConsentPurpose = (typeof CONSENT_PURPOSES)[number];

/** A channel a consent lets the club reach a fan on; a consent may name none (profiling). */
export const CONSENT_CHANNELS = ['email', 'sms', 'push'] as const;
export type ConsentChannel = (typeof CONSENT_CHANNELS)[number];

/** What became of an order, whatever the club calls its status. */
export const STATUS_GROUPS = ['paid', 'cancelled', 'refunded', 'pending'] as const;
export type StatusGroup = (typeof STATUS_GROUPS)[number];

export type ProductLine = 'ticket' | 'season_ticket';

/** What a consent means: its purpose and the channels it allows (none: a purpose without a channel). */
export interface ConsentMeaning {
  readonly purpose: ConsentPurpose;
  readonly channels: readonly ConsentChannel[];
  /** A short human name for reports. */
  readonly displayName: string;
}

/** A ticketing consent type (`/api/user_permission`: `id_consent_basic`, `name`, `consent_description`). */
export interface TicketingConsent extends ConsentMeaning {
  readonly id: number;
  readonly name: string;
  readonly description: string;
  /** Share of users who answered it. */
  readonly share: number;
}

/** An engagement consent text (`consentTexts`: id, text, isRequired, isEnabled). */
export interface ConsentText extends ConsentMeaning {
  readonly id: number;
  readonly text: string;
  readonly isRequired: boolean;
  readonly isEnabled: boolean;
}

/** An order status, used by tickets (`order_status_text`) and merchandise (`order_status_txt`) alike. */
export interface OrderStatus {
  readonly id: number;
  readonly name: string;
  readonly group: StatusGroup;
  /** Relative frequency among ticket orders and among merchandise orders. */
  readonly ticketWeight: number;
  readonly merchandiseWeight: number;
}

/** A ticket order type the club sells with (the documented Sales item types) and its product line. */
export interface TicketOrderType {
  readonly id: number;
  readonly name: string;
  readonly productLine: ProductLine;
  /**
   * Relative frequency among priced single-ticket orders; 0 for a type not sold ticket by
   * ticket (SeasonTicket).
   */
  readonly singleWeight: number;
}

/** A sales channel as one system spells it. */
export interface SalesChannel {
  readonly name: string;
  readonly displayName: string;
  /** Sold in the club's app: evidence the fan has the app, so push can reach them. */
  readonly isApp: boolean;
}

export interface MerchandiseChannel extends SalesChannel {
  /** Sold over the counter at the stadium: collected at once. */
  readonly atStadium: boolean;
}

/** How a person created by an ApiApp is served (`linked.people`: `network`, `systemId`). */
export interface ApiAppPeople {
  readonly network: string;
  readonly systemId: number | null;
  /** What the identity's `externalId` is: a ticketing user's id, or the app's own number. */
  readonly externalIdRefersTo: 'ticketing_user' | 'crm_number';
}

/**
 * Where season tickets are sold: on a virtual match of their own per season
 * (`just_seasonticket_sales`), or as a priced ticket on the season's first league match,
 * which is also the holder's seat there.
 */
export type SeasonTicketSale = 'virtual_match' | 'first_league_match';

export interface ClubProfile {
  readonly name: string;
  /** The home team of every match (`match_team_home_id`, `match_team_home_name`). */
  readonly homeTeam: readonly [number, string];
  /** The venue tickets name (`name`). */
  readonly venue: string;
  readonly ticketingConsents: readonly TicketingConsent[];
  readonly consentTexts: readonly ConsentText[];
  readonly orderStatuses: readonly OrderStatus[];
  readonly ticketOrderTypes: readonly TicketOrderType[];
  /** Tickets' `order_channel`, drawn evenly. */
  readonly ticketChannels: readonly SalesChannel[];
  /** Merchandise's `sale_channel_txt`, drawn evenly. */
  readonly merchandiseChannels: readonly MerchandiseChannel[];
  readonly seasonTicketSale: SeasonTicketSale;
  /** ApiApp 1 (whose identities carry ticketing user ids) and ApiApp 2 (a CRM sync). */
  readonly apiApps: Readonly<Record<1 | 2, ApiAppPeople>>;
}

/** The order type a season ticket is sold with (the ticketing document's SeasonTicket). */
export const SEASON_TICKET_ORDER_TYPE = 12;
