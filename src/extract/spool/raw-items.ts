/**
 * Where the items of a response body lie, exactly as the API sent them, so valid records go
 * to the spool without being serialized again. The body has already been parsed (that is
 * where records are validated); this only finds bytes, and anything unexpected answers
 * `undefined`, so the caller serializes the parsed records instead. Ticketing pages are read
 * by PageScanner; this serves the bodies it leaves to JSON.parse.
 */

/**
 * The bytes of each element of a JSON array inside a response body: under `key` of the
 * top-level object, or the body itself when `key` is undefined. Undefined when there is no
 * such array or the elements found are not `expected` many.
 */
export function rawArrayItems(body: Buffer, key: string | undefined, expected: number): Buffer[] | undefined {
  const start = key === undefined ? firstToken(body, 0) : valueOfTopLevelKey(body, key);
  if (start < 0 || body[start] !== OPEN_ARRAY) return undefined;
  const items: Buffer[] = [];
  let at = firstToken(body, start + 1);
  if (body[at] === CLOSE_ARRAY) return expected === 0 ? items : undefined;
  for (;;) {
    if (at < 0 || items.length >= expected) return undefined;
    const end = skipValue(body, at);
    if (end < 0) return undefined;
    items.push(body.subarray(at, end));
    at = firstToken(body, end);
    if (body[at] === CLOSE_ARRAY) return items.length === expected ? items : undefined;
    if (body[at] !== COMMA) return undefined;
    at = firstToken(body, at + 1);
  }
}

const LF = 10;
const CR = 13;
const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const OPEN_ARRAY = 91;
const CLOSE_ARRAY = 93;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;

/** Position after the string that opens at `at` (a quote), or -1 when it never closes. */
function skipString(body: Buffer, at: number): number {
  let quote = body.indexOf(QUOTE, at + 1);
  while (quote >= 0) {
    let slashes = 0;
    while (body[quote - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    quote = body.indexOf(QUOTE, quote + 1);
  }
  return -1;
}

/** Position after the value that starts at `at`, or -1 when the body ends first. */
function skipValue(body: Buffer, at: number): number {
  const first = body[at];
  if (first === QUOTE) return skipString(body, at);
  if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
    // A number or a literal: up to the next delimiter.
    let end = at;
    while (end < body.length && !isDelimiter(body[end]!)) end++;
    return end;
  }
  let depth = 0;
  for (let k = at; k < body.length; ) {
    const c = body[k]!;
    if (c === QUOTE) {
      // Strings are skipped with indexOf (memchr), which beats reading them byte by byte.
      k = skipString(body, k);
      if (k < 0) return -1;
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
    else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
      if (depth === 0) return k + 1;
    }
    k++;
  }
  return -1;
}

/**
 * Where the value of `key` in the top-level object starts, or -1. A key given twice is -1
 * too: JSON.parse keeps the last one's value, so the first one's bytes would not be the
 * records that were validated.
 */
function valueOfTopLevelKey(body: Buffer, key: string): number {
  let at = firstToken(body, 0);
  if (body[at] !== OPEN_OBJECT) return -1;
  const wanted = Buffer.from(JSON.stringify(key));
  let found = -1;
  at = firstToken(body, at + 1);
  while (at >= 0 && body[at] === QUOTE) {
    const keyEnd = skipString(body, at);
    if (keyEnd < 0) return -1;
    const colon = firstToken(body, keyEnd);
    if (body[colon] !== COLON) return -1;
    const value = firstToken(body, colon + 1);
    if (keyEnd - at === wanted.length && body.compare(wanted, 0, wanted.length, at, keyEnd) === 0) {
      if (found >= 0) return -1;
      found = value;
    }
    const valueEnd = skipValue(body, value);
    if (valueEnd < 0) return -1;
    const next = firstToken(body, valueEnd);
    if (body[next] === CLOSE_OBJECT) return found;
    if (body[next] !== COMMA) return -1;
    at = firstToken(body, next + 1);
  }
  return -1;
}

/** The first position at or after `at` that is not whitespace, or -1. */
function firstToken(body: Buffer, at: number): number {
  for (let k = at; k < body.length; k++) {
    const c = body[k]!;
    if (c !== 32 && c !== 9 && c !== LF && c !== CR) return k;
  }
  return -1;
}

function isDelimiter(c: number): boolean {
  return c === COMMA || c === CLOSE_ARRAY || c === CLOSE_OBJECT || c === 32 || c === 9 || c === LF || c === CR;
}
