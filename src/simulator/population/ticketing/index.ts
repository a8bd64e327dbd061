import type { ClubProfile } from '../../clubs/club-profile.js';
import type { CursorResource } from '../../store/cursor-resource.js';
import type { Population } from '../population.js';
import { Members } from './members.js';
import { Merchandise } from './merchandise.js';
import { Tickets } from './tickets.js';
import { UserPermissions } from './user-permissions.js';
import { Users } from './users.js';

export const TICKETING_RESOURCES = ['users', 'members', 'tickets', 'merchandise', 'user_permissions'] as const;
export type TicketingResource = (typeof TICKETING_RESOURCES)[number];

/** The ticketing system's records, generated from the population. */
export class TicketingData {
  readonly users: Users;
  readonly members: Members;
  readonly tickets: Tickets;
  readonly merchandise: Merchandise;
  readonly userPermissions: UserPermissions;
  readonly byName: Record<TicketingResource, CursorResource>;

  constructor(population: Population, nowMs: number, club: ClubProfile) {
    this.users = new Users(population, nowMs);
    this.members = new Members(population, nowMs);
    this.tickets = new Tickets(population, this.users, nowMs, club);
    this.merchandise = new Merchandise(population, this.users, nowMs, club);
    this.userPermissions = new UserPermissions(population, this.users, nowMs, club.ticketingConsents);
    this.byName = {
      users: this.users,
      members: this.members,
      tickets: this.tickets,
      merchandise: this.merchandise,
      user_permissions: this.userPermissions,
    };
  }
}
