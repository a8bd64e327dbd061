import type { FieldDeclarations, FieldKind } from '../../sources/fields.js';
import { asOneLine, elementsAsLines } from './json-lines.js';

/**
 * Reads a list page's bytes without building its objects: whether the body is valid JSON
 * shaped `{"count": …, "items": [{…}, …], …}`, where each item lies, and whether each item
 * provably passes its declared fields. JSON.parse made every field of every record an
 * object or string and cost, with the garbage collections it caused, about as much CPU as
 * the rest of the extract; this reads each byte once and allocates next to nothing.
 *
 * It is a fast path, never the authority: an item it cannot vouch for (a wrong or unusual
 * value, a key nobody declared, a key spelled with escapes, an exponent) is marked `unsure`
 * and the caller parses that item alone and validates it with the declaration, which
 * quarantines it or accepts it. A body it cannot read at all (not this envelope, nesting
 * deeper than it follows, anything malformed) gives `undefined`, and the caller parses the
 * whole body as before, so a broken body fails as it always did. It never accepts bytes
 * JSON.parse would reject.
 */
export class ScannedPage {
  constructor(
    /** The envelope's `count`. */
    readonly count: number,
    /** Start and end (exclusive) of each item in the body, two numbers per item. */
    readonly spans: readonly number[],
    /** Indices of items to parse and validate one by one; every other item passed. */
    readonly unsure: readonly number[],
    /** The greatest cursor value among the items that passed. */
    readonly newest: string | undefined,
    private readonly body: Buffer,
  ) {}

  get size(): number {
    return this.spans.length / 2;
  }

  /** Item `k`'s bytes as received. */
  bytes(k: number): Buffer {
    return this.body.subarray(this.spans[2 * k]!, this.spans[2 * k + 1]!);
  }

  /** Item `k` as received, made one JSON line in place (see json-lines.ts): what the spool takes. */
  line(k: number): Buffer {
    return asOneLine(this.bytes(k));
  }

  /** Every item as received, one JSON line each, rewritten in place (see json-lines.ts): what the spool takes. */
  lines(): Buffer {
    return elementsAsLines(this.body, this.spans);
  }

  /** Item `k`, parsed. */
  parse(k: number): unknown {
    return JSON.parse(this.body.toString('utf8', this.spans[2 * k]!, this.spans[2 * k + 1]!));
  }
}

/** What a JSON value is, as a bit; a kind accepts a set of them. */
const STRING = 1;
const SAFE_INTEGER = 2;
const FINITE_NUMBER = 4;
const BOOLEAN = 8;
const NESTED = 16;
const NULL = 32;

/** Each kind's fast check (see FIELD_KINDS), as the value types it accepts for sure. */
const ACCEPTS: Record<FieldKind, number> = {
  int: SAFE_INTEGER,
  float: SAFE_INTEGER | FINITE_NUMBER,
  bool: BOOLEAN,
  string: STRING,
  id: STRING | SAFE_INTEGER,
  text: STRING | SAFE_INTEGER | FINITE_NUMBER | BOOLEAN,
  json: STRING | SAFE_INTEGER | FINITE_NUMBER | BOOLEAN | NESTED,
};

// Bytes inside a string: 0 plain ASCII, 1 the closing quote, 2 a backslash, 3 a control
// character (not allowed raw), 4 part of a multi-byte character.
const IN_STRING = new Uint8Array(256);
IN_STRING[0x22] = 1;
IN_STRING[0x5c] = 2;
IN_STRING.fill(3, 0, 0x20);
IN_STRING.fill(4, 0x80, 0x100);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;

/** Nesting followed inside an item before the page is left to JSON.parse. */
const MAX_DEPTH = 64;
/** Digits of an integer that is surely a safe integer (below 2^53). */
const SAFE_DIGITS = 15;
/** Characters of a decimal without exponent that is surely finite. */
const FINITE_CHARS = 300;

class Malformed extends Error {}
const MALFORMED = new Malformed();

interface ItemsFound {
  /** Where the items array's closing bracket is. */
  readonly end: number;
  readonly spans: number[];
  readonly unsure: number[];
  readonly newest: [number, number] | undefined;
}

interface Field {
  readonly name: Buffer;
  /** The name's bytes four at a time (little-endian), as a DataView reads them: most keys compare in a few steps. */
  readonly words: Uint32Array;
  readonly accepts: number;
  readonly required: boolean;
}

export interface PageScannerOptions {
  readonly fields: FieldDeclarations;
  /** Fields that must be present and not null. */
  readonly requiredKey: readonly string[];
  /** The field whose greatest value is the high-water mark. */
  readonly cursorField?: string;
}

/** A scanner for one resource's pages; it learns undeclared keys as the spool adds them. */
export class PageScanner {
  readonly #fields: Field[] = [];
  readonly #cursor: number;
  readonly #requiredCount: number;
  /** Field indices in the order the last item had them: the next item most likely has the same. */
  #order: number[] = [];
  /** `#seen[field]` is the number of the item that last had the field: finds duplicates and required keys. */
  #seen: Uint32Array;
  #itemNumber = 0;
  // Set by #string: whether the string just read has no escapes (and, unless #clean, is ASCII).
  #plain = true;
  /** Whether the body being scanned has no backslash at all: then no string in it has an escape (the usual case). */
  #clean = false;

  constructor(options: PageScannerOptions) {
    for (const [name, kind] of Object.entries(options.fields)) this.#add(name, ACCEPTS[kind], options.requiredKey.includes(name));
    this.#cursor = options.cursorField === undefined ? -1 : Object.keys(options.fields).indexOf(options.cursorField);
    this.#requiredCount = this.#fields.filter((field) => field.required).length;
    this.#seen = new Uint32Array(this.#fields.length);
  }

  /** A key that is now a column of its own: any value passes. */
  learn(name: string): void {
    const bytes = keyBytes(name);
    if (this.#fields.some((field) => field.name.equals(bytes))) return;
    this.#add(name, ACCEPTS.json | NULL, false);
    this.#seen = new Uint32Array(this.#fields.length);
  }

  /** The page, or undefined when its body must be parsed as a whole. */
  scan(body: Buffer): ScannedPage | undefined {
    try {
      return this.#envelope(body);
    } catch (error) {
      if (error === MALFORMED) return undefined;
      throw error;
    }
  }

  #add(name: string, accepts: number, required: boolean): void {
    const bytes = keyBytes(name);
    const words = new Uint32Array(bytes.length >>> 2);
    for (let k = 0; k < words.length; k++) words[k] = bytes.readUInt32LE(4 * k);
    this.#fields.push({ name: bytes, words, accepts: accepts | (required ? 0 : NULL), required });
  }

  #envelope(body: Buffer): ScannedPage | undefined {
    this.#clean = body.indexOf(BACKSLASH) < 0;
    let at = skipSpace(body, 0);
    if (body[at] !== OPEN_OBJECT) return undefined;
    let count: number | undefined;
    let items: ItemsFound | undefined;
    const names = new Set<string>();
    at = skipSpace(body, at + 1);
    if (body[at] === CLOSE_OBJECT) return undefined;
    for (;;) {
      if (body[at] !== QUOTE) throw MALFORMED;
      const keyEnd = this.#string(body, at);
      const name = body.toString('latin1', at + 1, keyEnd - 1);
      // JSON.parse keeps the last of two members of one name; such a body is left to it.
      if (!this.#plain || names.has(name)) return undefined;
      names.add(name);
      at = skipSpace(body, keyEnd);
      if (body[at] !== COLON) throw MALFORMED;
      at = skipSpace(body, at + 1);
      if (name === 'count') {
        const end = this.#value(body, at, 0);
        count = countOf(body.toString('latin1', at, end));
        at = end;
      } else if (name === 'items' && body[at] === OPEN_ARRAY) {
        items = this.#items(body, at, new DataView(body.buffer, body.byteOffset, body.length));
        at = items.end + 1;
      } else {
        at = this.#value(body, at, 0);
      }
      at = skipSpace(body, at);
      if (body[at] === COMMA) {
        at = skipSpace(body, at + 1);
        continue;
      }
      if (body[at] !== CLOSE_OBJECT) throw MALFORMED;
      break;
    }
    if (skipSpace(body, at + 1) !== body.length) throw MALFORMED;
    if (count === undefined || items === undefined) return undefined;
    const newest = items.newest && body.toString('latin1', items.newest[0], items.newest[1]);
    return new ScannedPage(count, items.spans, items.unsure, newest, body);
  }

  /** The items array opening at `at`: its end, each item's span, the unsure ones, the greatest cursor span. `view` reads the body four bytes at a time. */
  #items(body: Buffer, open: number, view: DataView<ArrayBufferLike>): ItemsFound {
    const spans: number[] = [];
    const unsure: number[] = [];
    let newest: [number, number] | undefined;
    let at = skipSpace(body, open + 1);
    if (body[at] !== CLOSE_ARRAY) {
      for (;;) {
        const cursor: [number, number] = [-1, -1];
        const end = body[at] === OPEN_OBJECT ? this.#object(body, view, at, cursor) : -this.#value(body, at, 1);
        const sure = end > 0;
        spans.push(at, Math.abs(end));
        if (!sure) unsure.push(spans.length / 2 - 1);
        else if (cursor[0] >= 0 && (newest === undefined || compareBytes(body, cursor, newest) > 0)) newest = cursor;
        at = skipSpace(body, Math.abs(end));
        if (body[at] === COMMA) {
          at = skipSpace(body, at + 1);
          continue;
        }
        if (body[at] !== CLOSE_ARRAY) throw MALFORMED;
        break;
      }
    }
    return { end: at, spans, unsure, newest };
  }

  /**
   * The item (an object) opening at `at`: the position after it, negative when it did not
   * provably pass. `cursor` receives the span of its cursor value when that is plain text.
   */
  #object(body: Buffer, view: DataView<ArrayBufferLike>, open: number, cursor: [number, number]): number {
    const item = ++this.#itemNumber;
    const fields = this.#fields;
    let sure = true;
    let required = 0;
    let position = 0;
    let at = skipSpace(body, open + 1);
    if (body[at] === CLOSE_OBJECT) return this.#requiredCount === 0 ? at + 1 : -(at + 1);
    for (;;) {
      if (body[at] !== QUOTE) throw MALFORMED;
      // Most keys come in the last item's order: compared in place, they need no string scan.
      const predicted = this.#order[position];
      const expected = predicted === undefined ? undefined : fields[predicted]!;
      let field: number;
      if (expected !== undefined && body[at + 1 + expected.name.length] === QUOTE && isKey(view, body, at + 1, expected)) {
        field = predicted!;
        at += expected.name.length + 2;
      } else {
        const keyEnd = this.#string(body, at);
        field = this.#field(body, at + 1, keyEnd - 1, position);
        at = keyEnd;
      }
      position++;
      at = skipSpace(body, at);
      if (body[at] !== COLON) throw MALFORMED;
      at = skipSpace(body, at + 1);
      const start = at;
      const type = valueType(body[at]!);
      at = type === STRING ? this.#string(body, at) : this.#value(body, at, 1);
      if (field < 0 || this.#seen[field] === item) {
        sure = false;
      } else {
        this.#seen[field] = item;
        const actual = type === STRING || type === NESTED ? type : scalarType(body, start, at);
        const { accepts, required: isRequired } = fields[field]!;
        if ((accepts & actual) === 0) sure = false;
        else if (isRequired) required++;
        if (field === this.#cursor && actual === STRING) {
          if (this.#plain && isAscii(body, start + 1, at - 1)) {
            cursor[0] = start + 1;
            cursor[1] = at - 1;
          } else {
            sure = false;
          }
        }
      }
      at = skipSpace(body, at);
      if (body[at] === COMMA) {
        at = skipSpace(body, at + 1);
        continue;
      }
      if (body[at] !== CLOSE_OBJECT) throw MALFORMED;
      at++;
      break;
    }
    if (required !== this.#requiredCount) sure = false;
    return sure ? at : -at;
  }

  /** The index of the field named by the key bytes `[start, end)`, or -1; remembered for the next item. */
  #field(body: Buffer, start: number, end: number, position: number): number {
    const found = this.#fields.findIndex((field) => sameBytes(body, start, end, field.name));
    if (found >= 0) this.#order[position] = found;
    return found;
  }

  /** Position after the string opening at `at`; sets `#plain`. */
  #string(body: Buffer, at: number): number {
    if (this.#clean) {
      // No escapes anywhere in the body: the next quote ends the string, unless a control
      // byte (never allowed raw in a string) comes first. Most bytes are above the quote.
      const length = body.length;
      let k = at + 1;
      let c = 0;
      while (k < length && ((c = body[k]!) > QUOTE || (c !== QUOTE && c >= 0x20))) k++;
      if (k >= length || c !== QUOTE) throw MALFORMED;
      this.#plain = true;
      return k + 1;
    }
    let plain = true;
    for (let k = at + 1; k < body.length; k++) {
      const kind = IN_STRING[body[k]!]!;
      if (kind === 0) continue;
      if (kind === 1) {
        this.#plain = plain;
        return k + 1;
      }
      plain = false;
      if (kind === 3) throw MALFORMED;
      if (kind === 2) k = escapeEnd(body, k + 1);
    }
    throw MALFORMED;
  }

  /** Position after any JSON value starting at `at`, checked as JSON.parse would. */
  #value(body: Buffer, at: number, depth: number): number {
    const first = body[at];
    if (first === QUOTE) return this.#string(body, at);
    if (first === OPEN_OBJECT || first === OPEN_ARRAY) {
      if (depth > MAX_DEPTH) throw MALFORMED;
      const close = first === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY;
      at = skipSpace(body, at + 1);
      if (body[at] === close) return at + 1;
      for (;;) {
        if (first === OPEN_OBJECT) {
          if (body[at] !== QUOTE) throw MALFORMED;
          at = skipSpace(body, this.#string(body, at));
          if (body[at] !== COLON) throw MALFORMED;
          at = skipSpace(body, at + 1);
        }
        at = skipSpace(body, this.#value(body, at, depth + 1));
        if (body[at] === COMMA) {
          at = skipSpace(body, at + 1);
          continue;
        }
        if (body[at] !== close) throw MALFORMED;
        return at + 1;
      }
    }
    if (first === 0x74) return literal(body, at, TRUE);
    if (first === 0x66) return literal(body, at, FALSE);
    if (first === 0x6e) return literal(body, at, NULL_BYTES);
    return numberEnd(body, at);
  }
}

const TRUE = Buffer.from('true');
const FALSE = Buffer.from('false');
const NULL_BYTES = Buffer.from('null');

/** A key as it is sent when sent plainly: its JSON text without the quotes. */
function keyBytes(name: string): Buffer {
  return Buffer.from(JSON.stringify(name).slice(1, -1));
}

/** The envelope's count, as the API sends it (a string of digits or a whole number). */
function countOf(text: string): number | undefined {
  const digits = /^"(\d+)"$/.exec(text)?.[1] ?? (/^\d+$/.test(text) ? text : undefined);
  return digits === undefined || digits.length > SAFE_DIGITS ? undefined : Number(digits);
}

/** The type a value's first byte announces; numbers and literals are told apart by `scalarType`. */
function valueType(first: number): number {
  if (first === QUOTE) return STRING;
  if (first === OPEN_OBJECT || first === OPEN_ARRAY) return NESTED;
  return 0;
}

/** The type of the number or literal at `[start, end)`, already checked to be well formed. */
function scalarType(body: Buffer, start: number, end: number): number {
  const first = body[start]!;
  if (first === 0x74 || first === 0x66) return BOOLEAN;
  if (first === 0x6e) return NULL;
  let digits = 0;
  for (let k = start; k < end; k++) {
    const c = body[k]!;
    if (c >= ZERO && c <= NINE) digits++;
    else if (c === 0x65 || c === 0x45) return 0;
    else if (c === 0x2e) return end - start <= FINITE_CHARS ? FINITE_NUMBER : 0;
  }
  return digits <= SAFE_DIGITS ? SAFE_INTEGER : 0;
}

/** Position after a number at `at`, by JSON's grammar: -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)? */
function numberEnd(body: Buffer, at: number): number {
  let k = at;
  if (body[k] === MINUS) k++;
  if (body[k] === ZERO) k++;
  else if (isDigit(body[k])) while (isDigit(body[k])) k++;
  else throw MALFORMED;
  if (body[k] === 0x2e) {
    k++;
    if (!isDigit(body[k])) throw MALFORMED;
    while (isDigit(body[k])) k++;
  }
  if (body[k] === 0x65 || body[k] === 0x45) {
    k++;
    if (body[k] === 0x2b || body[k] === MINUS) k++;
    if (!isDigit(body[k])) throw MALFORMED;
    while (isDigit(body[k])) k++;
  }
  return k;
}

function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= ZERO && c <= NINE;
}

/** Position of the last byte of the escape whose letter is at `at`. */
function escapeEnd(body: Buffer, at: number): number {
  const letter = body[at];
  if (letter === 0x75) {
    for (let k = at + 1; k <= at + 4; k++) if (!isHex(body[k])) throw MALFORMED;
    return at + 4;
  }
  // " \ / b f n r t
  if (letter === 0x22 || letter === 0x5c || letter === 0x2f || letter === 0x62 || letter === 0x66 || letter === 0x6e || letter === 0x72 || letter === 0x74) return at;
  throw MALFORMED;
}

function isHex(c: number | undefined): boolean {
  return c !== undefined && ((c >= ZERO && c <= NINE) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66));
}

function literal(body: Buffer, at: number, word: Buffer): number {
  for (let k = 0; k < word.length; k++) if (body[at + k] !== word[k]) throw MALFORMED;
  return at + word.length;
}

function isAscii(body: Buffer, start: number, end: number): boolean {
  for (let k = start; k < end; k++) if (body[k]! >= 0x80) return false;
  return true;
}

function skipSpace(body: Buffer, at: number): number {
  while (at < body.length) {
    const c = body[at]!;
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return at;
    at++;
  }
  return at;
}

/** Whether the bytes at `start` are the field's name (the caller checked that a quote follows it). */
function isKey(view: DataView<ArrayBufferLike>, body: Buffer, start: number, field: Field): boolean {
  const { name, words } = field;
  let k = 0;
  for (let w = 0; w < words.length; w++, k += 4) if (view.getUint32(start + k, true) !== words[w]) return false;
  for (; k < name.length; k++) if (body[start + k] !== name[k]) return false;
  return true;
}

function sameBytes(body: Buffer, start: number, end: number, name: Buffer): boolean {
  if (end - start !== name.length) return false;
  for (let k = 0; k < name.length; k++) if (body[start + k] !== name[k]) return false;
  return true;
}

/** Compares two plain ASCII spans of the body as JavaScript compares the strings. */
function compareBytes(body: Buffer, a: readonly [number, number], b: readonly [number, number]): number {
  const length = Math.min(a[1] - a[0], b[1] - b[0]);
  for (let k = 0; k < length; k++) {
    const difference = body[a[0] + k]! - body[b[0] + k]!;
    if (difference !== 0) return difference;
  }
  return a[1] - a[0] - (b[1] - b[0]);
}
