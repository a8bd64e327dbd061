import type { FieldDeclarations } from '../fields.js';
import type { PersonalFields, PersonKey } from '../personal-data.js';
import type { ResourceSpec } from '../resource-spec.js';

/**
 * The five list endpoints of the ticketing data-export API (seed document 001). Field
 * kinds follow what the API sends (the field tables), not what the values mean.
 */
const s = 'string';
const i = 'int';

const USER_FIELDS: FieldDeclarations = {
  id: i, last_update: s, username: s, name_first: s, name_last: s, completename: s, birthday: s, gender: s,
  email: s, phone: s, enabled: 'bool', address: s, city: s, country: s, zip_code: s, user_created: s,
  user_last_login: s, user_category: s,
};

const MEMBER_FIELDS: FieldDeclarations = {
  id: i, last_update: s, name: s, phone: s, max_tickets_per_match: i, tasks: s, ticket_pool_used: i,
  category_id: i, category: s, ticket_pool_total: i, ticket_pool_total_text: s,
};

const TICKET_FIELDS: FieldDeclarations = {
  id: s, last_update: s, order_date: s, id_transaction: i, id_sale_order: s, id_event: i, match_date: s,
  match_time: s, league_name: s, match_sales_start: s, match_sales_close: s, match_finished: 'bool',
  match_team_home_id: i, match_team_away_id: i, match_team_home_name: s, match_team_away_name: s, name: s,
  season: s, external_id: s, order_type: i, order_type_txt: s, order_channel: s, order_status: i,
  order_status_text: s, order_price: s, ticket_vat: s, ticket_subtotal: s, ticket_price: s, ticket_type: i,
  ticket_type_txt: s, id_ticket_status: i, ticket_status_txt: s, ticket_redeemed: 'bool',
  ticket_price_category: i, ticket_price_description: s, ticket_was_printed: i, ticket_section: s,
  ticket_row: s, ticket_seat: s, user_aquired_id: i, user_aquired_date_created: s, user_aquired_email: s,
  user_aquired_phone: s, user_aquired_username: s, u_aquired_address: s, u_aquired_city: s,
  u_aquired_country: s, u_aquired_zip_code: s, user_held_id: i, user_held_date_created: s,
  user_held_email: s, user_held_phone: s, user_held_username: s, user_held_address: s, user_held_city: s,
  user_held_country: s, user_held_zip_code: s, ticket_date_released: s,
  // "Boolean, serialized as a string in samples": kept as sent.
  ticket_released: 'text',
  distribution: s, id_season_ticket: s, just_seasonticket_sales: 'bool', event_type: i,
};

const MERCHANDISE_FIELDS: FieldDeclarations = {
  id: i, vat: 'float', vat_percentage: i, id_order: s, last_update: s, user_id: i, order_amount: s,
  payment_code: s, order_datetime: s, username: s, recovery_mail_address: s, phone_number: s,
  recovery_phone_number: s, phone_guest: s, pickup_data: s, user_address: s, user_city: s, user_country: s,
  user_zip_code: s, user_created: s, user_last_login: s, id_transaction_status: i, id_transaction: i,
  order_no: i, in_app_transaction: 'bool', redeem_status: i, name_redeemed: s, note_redeemed: s,
  from_redeemed: s, id_external_transaction: s, notater_ticket: s, date_redeemed: s, from_redeemed_txt: s,
  redeem_status_txt: s, order_type: i, order_status: i, payment_type: i, order_type_txt: s,
  order_status_txt: s, payment_type_txt: s, sale_channel_txt: s, result: s, refund_detail: s,
  refunded_amount: s, cancel_detail: s, prod_id: i, prod_name: s, prod_size: s, prod_conf: 'json',
  prod_base_price: i, prod_additional: i, prod_disccount: i, prod_min_price: i, prod_max_price: i,
  price_subtotal: 'float', vat_category: s, order_final_price: i,
};

const USER_PERMISSION_FIELDS: FieldDeclarations = {
  // Documented as String; an id sent as a number is kept as its text.
  id_user: 'id', id_consent_basic: i, last_update: s, decision: 'bool', name: s, consent_description: s,
};

const USER_PERSONAL: PersonalFields = {
  username: 'online_identifier', name_first: 'name', name_last: 'name', completename: 'name', birthday: 'birth_date',
  email: 'email', phone: 'phone', address: 'address', city: 'address', zip_code: 'address',
};

// `tasks` is what the member does for the club ("Board member"): text about the person.
const MEMBER_PERSONAL: PersonalFields = { name: 'name', phone: 'phone', tasks: 'free_text' };

// Buyer and holder are copied onto every ticket. `name` is the venue's, not a person's.
const TICKET_PERSONAL: PersonalFields = {
  user_aquired_email: 'email', user_aquired_phone: 'phone', user_aquired_username: 'online_identifier',
  u_aquired_address: 'address', u_aquired_city: 'address', u_aquired_zip_code: 'address',
  user_held_email: 'email', user_held_phone: 'phone', user_held_username: 'online_identifier',
  user_held_address: 'address', user_held_city: 'address', user_held_zip_code: 'address',
};

// Notes, pick-up data and the product's configuration (a name printed on a shirt) are free text.
const MERCHANDISE_PERSONAL: PersonalFields = {
  username: 'online_identifier', recovery_mail_address: 'email', phone_number: 'phone', recovery_phone_number: 'phone',
  phone_guest: 'phone', pickup_data: 'free_text', user_address: 'address', user_city: 'address', user_zip_code: 'address',
  name_redeemed: 'name', note_redeemed: 'free_text', notater_ticket: 'free_text', prod_conf: 'free_text',
};

const user = (field: string): PersonKey => ({ field, refersTo: 'ticketing_user' });

const paging = (pageBase: 0 | 1 | 'auto', datesRequired: boolean) => ({ style: 'date-window', pageBase, datesRequired, pageSize: 200 }) as const;

export const TICKETING_RESOURCES = [
  { name: 'users', path: '/api/users', paging: paging(0, true), primaryKey: ['id'], cursorField: 'last_update', fields: USER_FIELDS, personal: USER_PERSONAL, personKeys: [user('id')] },
  // Documented in two variants (zero-based with required dates, one-based with optional ones).
  { name: 'members', path: '/api/members', paging: paging('auto', false), primaryKey: ['id'], cursorField: 'last_update', fields: MEMBER_FIELDS, personal: MEMBER_PERSONAL, personKeys: [{ field: 'id', refersTo: 'ticketing_member' }] },
  { name: 'tickets', path: '/api/tickets', paging: paging(1, true), primaryKey: ['id'], cursorField: 'last_update', fields: TICKET_FIELDS, personal: TICKET_PERSONAL, personKeys: [user('user_aquired_id'), user('user_held_id')] },
  { name: 'merchandise', path: '/api/merchandise', paging: paging(1, false), primaryKey: ['id'], cursorField: 'last_update', fields: MERCHANDISE_FIELDS, personal: MERCHANDISE_PERSONAL, personKeys: [user('user_id')] },
  { name: 'user_permissions', path: '/api/user_permission', paging: paging(0, true), primaryKey: ['id_user', 'id_consent_basic'], cursorField: 'last_update', fields: USER_PERMISSION_FIELDS, personKeys: [user('id_user')] },
] as const satisfies readonly ResourceSpec[];

export type TicketingResourceName = (typeof TICKETING_RESOURCES)[number]['name'];
