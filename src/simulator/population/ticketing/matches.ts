import type { ClubProfile } from '../../clubs/club-profile.js';
import { Rng } from '../../random.js';
import { TEAMS } from '../names.js';
import { DAY_MS, HOUR_MS } from '../time.js';

export const SEASONS = 6;
export const EVENTS_PER_SEASON = 40;

export interface Match {
  readonly index: number;
  readonly idEvent: number;
  readonly season: string;
  readonly kickoffMs: number;
  readonly salesStartMs: number;
  readonly salesCloseMs: number;
  readonly league: string;
  readonly home: readonly [number, string];
  readonly away: readonly [number, string];
  /** A virtual match that only sells season tickets (`just_seasonticket_sales`). */
  readonly virtual: boolean;
  /** Season tickets of its season are sold on it (the virtual match, or a club's first league match). */
  readonly sellsSeasonTickets: boolean;
  /** Relative demand for tickets. */
  readonly popularity: number;
}

/**
 * The club's calendar: six seasons (calendar years ending with the current one) of 40
 * event slots each. The first slot of every season is the virtual season-ticket sale where
 * the club sells season tickets that way; a club that sells them on its first league match
 * has no virtual match, and the slot stays empty (ids and seasons keep their numbers).
 */
export function buildMatches(seed: number, nowMs: number, club: Pick<ClubProfile, 'seasonTicketSale' | 'homeTeam'>): Match[] {
  const { seasonTicketSale, homeTeam } = club;
  const currentYear = new Date(nowMs).getUTCFullYear();
  const matches: Match[] = [];
  for (let s = 0; s < SEASONS; s++) {
    const year = currentYear - SEASONS + 1 + s;
    const seasonStart = Date.UTC(year, 2, 1);
    let sold = false;
    for (let e = 0; e < EVENTS_PER_SEASON; e++) {
      const index = s * EVENTS_PER_SEASON + e;
      const rng = Rng.for(seed, 'match', index);
      const virtual = e === 0;
      if (virtual && seasonTicketSale !== 'virtual_match') continue;
      const league = virtual ? 'Season tickets' : e % 8 === 0 ? 'NM Cup' : 'Eliteserien';
      const sellsSeasonTickets: boolean = virtual || (seasonTicketSale === 'first_league_match' && !sold && league === 'Eliteserien');
      sold ||= sellsSeasonTickets;
      const day = virtual ? seasonStart - 60 * DAY_MS : seasonStart + (e - 1) * 6.5 * DAY_MS;
      const kickoffMs = Math.floor(day / DAY_MS) * DAY_MS + rng.pick([15, 17, 18, 19, 20]) * HOUR_MS;
      const away = TEAMS[1 + ((e + s * 7) % (TEAMS.length - 1))]!;
      matches.push({
        index,
        idEvent: 1000 + index,
        season: String(year),
        kickoffMs,
        salesStartMs: kickoffMs - (virtual ? 120 : 30) * DAY_MS,
        salesCloseMs: kickoffMs - HOUR_MS,
        league,
        home: homeTeam,
        away: virtual ? homeTeam : away,
        virtual,
        sellsSeasonTickets,
        popularity: virtual ? 0.5 : 0.6 + rng.next() * 0.8,
      });
    }
  }
  return matches;
}
