/**
 * What a code's own words make plain, in English and Norwegian, for `fanlake doctor --write`: a
 * suggestion the club confirms or corrects, never a meaning applied on its own. Each rule is a
 * pattern over the folded name or text; the first that matches wins, and where none does the
 * suggestion leaves the field for the club to fill in.
 */
type Rule<T> = readonly [RegExp, T];

const CHANNEL_RULES: Rule<'email' | 'sms' | 'push'>[] = [
  [/\b(sms|tekstmelding\w*|text messages?)\b|sms-/, 'sms'],
  [/\b(push\w*|varsl\w*|varsel|notifications?|i appen|in the app)\b/, 'push'],
  [/\b(e-?mail|e-?post|epost|nyhetsbrev\w*|newsletters?)\b/, 'email'],
];

const PURPOSE_RULES: Rule<string>[] = [
  // inside compounds too: samarbeidspartnere
  [/partner|sponsor/, 'partner_marketing'],
  [/\b(profil\w*|tilpass\w*|personali[sz]\w*|analys\w*|segment\w*)\b/, 'profiling'],
  [/\b(bekreft\w*|confirm\w*|kvittering\w*|receipts?)\b/, 'transactional'],
];

const STATUS_RULES: Rule<string>[] = [
  [/\b(refund\w*|refusj\w*|tilbakebetal\w*|returned)\b/, 'refunded'],
  [/\b(cancel\w*|kansel\w*|avbrut\w*|annuller\w*|void\w*)\b/, 'cancelled'],
  [/\b(pending|await\w*|venter|reserv\w*|ubetalt|unpaid)\b|awaiting/, 'pending'],
  [/\b(complet\w*|paid|betalt|fullf\w*|gjennomf\w*|settled)\b/, 'paid'],
];

const PRODUCT_RULES: Rule<string>[] = [
  [/season|sesong/, 'season_ticket'],
  [/ticket|billett/, 'ticket'],
];

const SALES_CHANNEL_RULES: Rule<{ display: string; app: boolean }>[] = [
  [/\bapp\b|mobil/, { display: 'App', app: true }],
  [/web|nett|online|internet/, { display: 'Online', app: false }],
  [/box office|billettkontor|kiosk|stadium|stadion|arena|luke/, { display: 'Stadium', app: false }],
  [/partner|agent|forhandler|reseller/, { display: 'Partner', app: false }],
];

function folded(text: string): string {
  return text.toLowerCase().normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/ø/g, 'o').replace(/æ/g, 'ae').replace(/å/g, 'a');
}

function firstMatch<T>(rules: readonly Rule<T>[], text: string): T | undefined {
  const subject = folded(text);
  return rules.find(([pattern]) => pattern.test(subject))?.[1];
}

/** A consent's purpose and channels as its words make plain; empty where they do not. */
export function suggestConsent(text: string): { purpose: string; channels: ('email' | 'sms' | 'push')[] } {
  const channel = firstMatch(CHANNEL_RULES, text);
  const purpose = firstMatch(PURPOSE_RULES, text) ?? (channel ? 'club_marketing' : '');
  return { purpose, channels: channel ? [channel] : [] };
}

/** An order status's group; `other` where its words say nothing plain. */
export function suggestStatusGroup(name: string): string {
  return firstMatch(STATUS_RULES, name) ?? 'other';
}

/** An order type's product line: a season ticket or a ticket (a priced ticket is a sale). */
export function suggestProductLine(name: string): string {
  return firstMatch(PRODUCT_RULES, name) ?? 'ticket';
}

/** A sales channel's shared name and whether it is the club's app. */
export function suggestSalesChannel(channel: string): { display: string; app: boolean } {
  return firstMatch(SALES_CHANNEL_RULES, channel) ?? { display: channel, app: false };
}
