// Noise of the independent identity set, written from a list of how real systems
// spell one person differently, and from nothing in src/simulator: its own code, its own
// rates, its own random draws (faker's seeded generator). Each record is noised on its own.

/** Share of records each kind hits (of records where it can act), chosen apart from the simulator's. */
export const INDEPENDENT_NOISE_RATES = {
  diacriticsDropped: 0.15,
  transliterated: 0.1,
  middleNameWritten: 0.5,
  firstNameTypo: 0.02,
  lastNameTypo: 0.03,
  consonants: 0.04,
  upperCase: 0.05,
  lowerCase: 0.04,
  swapped: 0.02,
  emailChanged: 0.08,
  phoneChanged: 0.06,
  /** Of records of a person whose first name has a nickname or short form (NICKNAMES). */
  shortForm: 0.12,
};

/**
 * Nicknames and short forms of faker's Norwegian first names, as people go by them in Norway
 * (Lasse, Mons, Jokke, Stine) and in English (Alex, Will, Maddie, Ollie); written from common
 * usage, not from fanlake's defaults/club/first_name_forms.csv, so the set shows what a club's
 * file of forms misses as well as what it holds.
 */
export const NICKNAMES = {
  Alexander: ['Alex', 'Sander', 'Xander'], Andreas: ['Andy', 'Dreas'], Benjamin: ['Ben', 'Benji'], Daniel: ['Dan', 'Danny'],
  Fredrik: ['Fred', 'Freddy', 'Fredde'], Henrik: ['Henke'], Jakob: ['Jake'], Johannes: ['Johan', 'Hans', 'Jo'],
  Jonathan: ['Jon', 'Jonny', 'Nathan'], Joakim: ['Jokke', 'Kim'], Kristian: ['Kris', 'Stian'], Kristoffer: ['Kris', 'Chris', 'Toffer'],
  Lars: ['Lasse'], Lucas: ['Luke'], Magnus: ['Mons', 'Mange'], Markus: ['Mark'], Martin: ['Marty'], Mathias: ['Matt', 'Matte'],
  Nikolai: ['Nick', 'Niko'], Oliver: ['Olly', 'Ollie'], Sebastian: ['Seb', 'Basti', 'Bastian'], Theodor: ['Theo', 'Teddy'],
  Thomas: ['Tom', 'Tommy'], Tobias: ['Tobi'], William: ['Will', 'Bill', 'Liam', 'Willy'],
  Amalie: ['Malie', 'Amy'], Andrea: ['Andy', 'Drea'], Camilla: ['Milla', 'Cami'], Elise: ['Lise', 'Ellie'], Emilie: ['Emmy', 'Milly', 'Millie'],
  Emma: ['Em'], Helene: ['Lene', 'Lena'], Ingrid: ['Inga'], Julie: ['Jules'], Karoline: ['Line', 'Karo', 'Lina'],
  Kristine: ['Stine', 'Kine', 'Tine'], Madeleine: ['Maddie', 'Madde'], Maria: ['Mia', 'Maja'], Martine: ['Tine', 'Tina'],
  Mathilde: ['Tilde', 'Tilla'], Natalie: ['Nat'], Sofie: ['Sophie', 'Fie'], Victoria: ['Vicky', 'Tori'],
};

const FOLD = { æ: 'ae', Æ: 'AE', ø: 'o', Ø: 'O', å: 'a', Å: 'A', é: 'e', É: 'E', ü: 'u', ö: 'o', ä: 'a' };
const SPELL_OUT = { æ: 'ae', Æ: 'Ae', ø: 'oe', Ø: 'Oe', å: 'aa', Å: 'Aa' };
// Neighbouring keys on a Norwegian keyboard: a slip hits one of them.
const KEYBOARD = ['qwertyuiopå', 'asdfghjkløæ', 'zxcvbnm'];

/**
 * Writes one person's name, e-mail and phone as one system holds them; returns the written
 * values and the noise kinds that changed something.
 * @param {import('@faker-js/faker').Faker} faker seeded generator
 * @param {{firstName: string, middleName?: string, lastName: string, email: string, phone: string}} person
 * @param {(names: {firstName: string, lastName: string}) => string} newEmail an address nobody else has
 */
export function noisy(faker, person, newEmail) {
  const kinds = [];
  const hit = (kind) => faker.number.float() < INDEPENDENT_NOISE_RATES[kind];
  let first = person.firstName;
  let last = person.lastName;
  // known by a nickname in this system; the other kinds below act on it as on any name
  const nicknames = NICKNAMES[first];
  if (nicknames && hit('shortForm')) {
    first = faker.helpers.arrayElement(nicknames);
    kinds.push('shortForm');
  }
  if (person.middleName && hit('middleNameWritten')) {
    first = `${first} ${person.middleName}`;
    kinds.push('middleName');
  }
  const marked = /[æøåÆØÅéü]/.test(first + last);
  if (marked && hit('diacriticsDropped')) {
    [first, last] = [first, last].map((name) => name.replace(/[æøåÆØÅéÉüöä]/g, (letter) => FOLD[letter]));
    kinds.push('diacriticsDropped');
  } else if (marked && hit('transliterated')) {
    [first, last] = [first, last].map((name) => name.replace(/[æøåÆØÅ]/g, (letter) => SPELL_OUT[letter]));
    kinds.push('transliterated');
  }
  if (hit('firstNameTypo')) {
    const written = slip(faker, first);
    if (written !== first) kinds.push('firstNameTypo');
    first = written;
  }
  if (hit('lastNameTypo')) {
    const written = slip(faker, last);
    if (written !== last) kinds.push('lastNameTypo');
    last = written;
  }
  if (hit('consonants')) {
    const written = consonants(faker, last);
    if (written !== last) kinds.push('consonants');
    last = written;
  }
  if (hit('upperCase')) {
    [first, last] = [first.toUpperCase(), last.toUpperCase()];
    kinds.push('upperCase');
  } else if (hit('lowerCase')) {
    [first, last] = [first.toLowerCase(), last.toLowerCase()];
    kinds.push('lowerCase');
  }
  if (hit('swapped')) {
    [first, last] = [last, first];
    kinds.push('swapped');
  }
  let { email, phone } = person;
  if (hit('emailChanged')) {
    email = newEmail({ firstName: person.firstName, lastName: faker.helpers.arrayElement(['', person.lastName]) });
    kinds.push('emailChanged');
  }
  if (hit('phoneChanged')) {
    phone = mobileNumber(faker);
    kinds.push('phoneChanged');
  }
  return { firstName: first, lastName: last, email, phone, noise: kinds };
}

/** A Norwegian mobile number: eight digits starting 4 or 9. */
export function mobileNumber(faker) {
  return faker.helpers.arrayElement(['4', '9']) + faker.string.numeric(7);
}

/** One number as people write it: grouped, with +47 or 0047, or bare. */
export function writtenPhone(faker, digits) {
  return faker.helpers.arrayElement([
    digits,
    `+47 ${digits.slice(0, 3)} ${digits.slice(3, 5)} ${digits.slice(5)}`,
    `+47${digits}`,
    `0047 ${digits}`,
    `${digits.slice(0, 2)} ${digits.slice(2, 4)} ${digits.slice(4, 6)} ${digits.slice(6)}`,
  ]);
}

/** One keyboard slip in a word of at least four letters, never its first letter: a neighbouring key, a letter dropped, doubled, or two swapped. */
function slip(faker, name) {
  const word = name.split(' ')[0];
  if (word.length < 4) return name;
  const at = faker.number.int({ min: 1, max: word.length - 2 });
  const letter = word[at];
  let changed;
  switch (faker.number.int({ min: 0, max: 3 })) {
    case 0: {
      const row = KEYBOARD.find((keys) => keys.includes(letter.toLowerCase()));
      if (!row) return name;
      const index = row.indexOf(letter.toLowerCase());
      const neighbour = row[index + (index === 0 || (index < row.length - 1 && faker.datatype.boolean()) ? 1 : -1)];
      changed = word.slice(0, at) + neighbour + word.slice(at + 1);
      break;
    }
    case 1:
      changed = word.slice(0, at) + word.slice(at + 1);
      break;
    case 2:
      changed = word.slice(0, at) + letter + word.slice(at);
      break;
    default:
      changed = word.slice(0, at) + word[at + 1] + letter + word.slice(at + 2);
  }
  return changed + name.slice(word.length);
}

/** A doubled consonant written once (Pettersen → Petersen), or a single one after a vowel doubled (Olsen → Ollsen). */
function consonants(faker, name) {
  const doubles = [...name.matchAll(/([bcdfghjklmnpqrstvwxz])\1/gi)].map((match) => match.index);
  if (doubles.length > 0) {
    const at = faker.helpers.arrayElement(doubles);
    return name.slice(0, at) + name.slice(at + 1);
  }
  const singles = [...name.matchAll(/[aeiouyæøå]([bdfgklmnprst])(?![bdfgklmnprst])/gi)].map((match) => match.index + 1);
  if (singles.length === 0) return name;
  const at = faker.helpers.arrayElement(singles);
  return name.slice(0, at) + name[at] + name.slice(at);
}
