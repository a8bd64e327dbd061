import type { ClubProfile } from './club-profile.js';
import { FANLAKE } from './fanlake.js';
import { NORDVIK } from './nordvik.js';

export * from './club-profile.js';
export { clubMappingFiles } from './mapping-files.js';

/** The clubs `fanlake simulate --club-profile` can serve; the first is the default. */
export const CLUB_PROFILE_NAMES = ['fanlake', 'nordvik'] as const;
export type ClubProfileName = (typeof CLUB_PROFILE_NAMES)[number];

export const CLUB_PROFILES: Readonly<Record<ClubProfileName, ClubProfile>> = { fanlake: FANLAKE, nordvik: NORDVIK };
