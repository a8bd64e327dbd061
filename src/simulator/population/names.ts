/** Word lists for generated fans. Kept in the repo (not a fake-data library) so a seed's
 * output stays byte-identical across dependency upgrades. */
export const FEMALE_FIRST = ['Anna', 'Ingrid', 'Kari', 'Marit', 'Nora', 'Emma', 'Sofie', 'Ida', 'Maja', 'Sara', 'Hanne', 'Silje', 'Thea', 'Linnea', 'Åse', 'Solveig', 'Astrid', 'Hilde', 'Camilla', 'Julie', 'Mari', 'Tone', 'Eva', 'Ragnhild', 'Bjørg', 'Frida', 'Live', 'Amalie', 'Helene', 'Vilde'] as const;
export const MALE_FIRST = ['Ole', 'Lars', 'Jon', 'Per', 'Knut', 'Erik', 'Anders', 'Magnus', 'Henrik', 'Jakob', 'Emil', 'Sondre', 'Øyvind', 'Bjørn', 'Tor', 'Geir', 'Morten', 'Thomas', 'Kristian', 'Håkon', 'Sigurd', 'Even', 'Aksel', 'Filip', 'Mathias', 'Tobias', 'Jørgen', 'Stian', 'Eirik', 'Ståle'] as const;
/** Short forms and nicknames a person of these first names may go by in one system (noise.ts shortForm); each in the club's default first_name_forms.csv. */
export const FIRST_NAME_SHORT_FORMS: Partial<Record<string, readonly string[]>> = {
  Kristian: ['Kris', 'Stian'], Thomas: ['Tom', 'Tommy'], Helene: ['Lene', 'Lena'], Magnus: ['Mons'], Mathias: ['Matt'], Lars: ['Lasse'], Sofie: ['Sophie'],
};
export const LAST = ['Hansen', 'Johansen', 'Olsen', 'Larsen', 'Andersen', 'Pedersen', 'Nilsen', 'Kristiansen', 'Jensen', 'Karlsen', 'Johnsen', 'Pettersen', 'Eriksen', 'Berg', 'Haugen', 'Hagen', 'Johannessen', 'Andreassen', 'Jacobsen', 'Dahl', 'Jørgensen', 'Halvorsen', 'Henriksen', 'Lund', 'Sørensen', 'Jakobsen', 'Moen', 'Gundersen', 'Iversen', 'Strand', 'Solberg', 'Svendsen', 'Eide', 'Knutsen', 'Martinsen', 'Paulsen', 'Bakken', 'Kristoffersen', 'Mathisen', 'Lie', 'Amundsen', 'Nguyen', 'Rasmussen', 'Ali', 'Lunde', 'Solheim', 'Berge', 'Moe', 'Nygård', 'Bakke', 'Kristensen', 'Fredriksen', 'Holm', 'Lien', 'Hauge', 'Christensen', 'Andresen', 'Nielsen', 'Knudsen', 'Evensen'] as const;
export const CITIES = [
  ['Oslo', '0150', 'Oslo'], ['Bergen', '5003', 'Vestland'], ['Trondheim', '7011', 'Trøndelag'], ['Stavanger', '4006', 'Rogaland'],
  ['Drammen', '3015', 'Viken'], ['Fredrikstad', '1606', 'Viken'], ['Kristiansand', '4610', 'Agder'], ['Tromsø', '9008', 'Troms'],
  ['Sandnes', '4306', 'Rogaland'], ['Ålesund', '6002', 'Møre og Romsdal'], ['Bodø', '8006', 'Nordland'], ['Lillestrøm', '2000', 'Viken'],
] as const;
export const STREETS = ['Storgata', 'Kirkeveien', 'Parkveien', 'Skogveien', 'Fjordgata', 'Strandveien', 'Bakkeveien', 'Sjøgata', 'Elvegata', 'Solbakken'] as const;
export const MAIL_DOMAINS = ['gmail.com', 'hotmail.com', 'outlook.com', 'online.no', 'yahoo.com', 'icloud.com', 'live.no'] as const;
export const WORK_DOMAINS = ['equinor.com', 'dnb.no', 'telenor.no', 'kommune.no', 'nav.no', 'sykehuset.no', 'posten.no', 'ntnu.no'] as const;
export const TEAMS = [
  [1, 'Fanlake FK'], [2, 'Rosenborg'], [3, 'Molde'], [4, 'Brann'], [5, 'Viking'], [6, 'Vålerenga'], [7, 'Lillestrøm'],
  [8, 'Sarpsborg 08'], [9, 'Odd'], [10, 'Haugesund'], [11, 'Strømsgodset'], [12, 'Tromsø'], [13, 'Bodø/Glimt'],
  [14, 'Sandefjord'], [15, 'HamKam'], [16, 'Aalesund'],
] as const;

/** Lowercase ASCII form of a name for e-mail local parts. */
export function asciiName(name: string): string {
  return name
    .toLowerCase()
    .replace(/æ/g, 'ae')
    .replace(/ø/g, 'o')
    .replace(/å/g, 'a')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]/g, '');
}
