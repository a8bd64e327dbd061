/**
 * Where the items of a response body lie, exactly as the API sent them, so valid records go
 * to the spool without being serialized again. The body has already been parsed (that is
 * where records are validated); this only finds bytes, and anything unexpected answers
 * `undefined`, so the caller serializes the parsed records instead.
 */

/** The bytes of a JSON array's elements as received. */
export interface RawItems {
  /**
   * Every element at once: the bytes between the array's brackets (elements separated by
   * commas, whitespace included). Undefined when it could not be told cheaply that these
   * bytes hold exactly the parsed elements.
   */
  readonly all: Uint8Array | undefined;
  /** Each element's bytes, found on demand (for a page some of whose items are dropped). */
  each(): Buffer[] | undefined;
}

/**
 * The raw items of the array under `key` of a parsed response body (the envelope
 * `{"count":…,"page":…,"items":[…]}`), or of a body that is the array itself (`key`
 * undefined). `parsed` is what JSON.parse made of the body.
 *
 * `all` costs a few microseconds, whatever the page's size: the array's start is found by
 * skipping the members before it, its end is the body's last `]` when the parse says the
 * key is the body's last member. Only a second member of the same name could hide behind
 * that (JSON.parse keeps the first one's place and the last one's value); it would leave
 * `],"items":[` among the bytes, a stray bracket that DuckDB rejects when it reads the
 * spool as one JSON array, so such a body fails its resource loudly, never lands wrong
 * (and each conversion checks its row count against the records spooled). Searching every
 * page for the key's name to tell that case apart cost more than the rest of this.
 */
export function rawItemsOf(body: Buffer, key: string | undefined, parsed: unknown): RawItems | undefined {
  const items = key === undefined ? parsed : isObject(parsed) ? parsed[key] : undefined;
  if (!Array.isArray(items)) return undefined;
  const expected = items.length;
  const each = () => rawArrayItems(body, key, expected);
  const start = key === undefined ? firstToken(body, 0) : valueOfTopLevelKey(body, key);
  if (start < 0 || body[start] !== OPEN_ARRAY) return undefined;
  const unsure = { all: undefined, each };
  const end = lastToken(body, body.length - 1);
  let close = end;
  if (key !== undefined) {
    if (body[end] !== CLOSE_OBJECT || lastMemberName(parsed as object) !== key) return unsure;
    close = lastToken(body, end - 1);
  }
  if (close <= start || body[close] !== CLOSE_ARRAY) return unsure;
  const all = body.subarray(start + 1, close);
  // An empty array has only whitespace between its brackets, a non-empty one never.
  if ((expected === 0) !== (firstToken(all, 0) < 0)) return unsure;
  return { all, each };
}

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

/** Where the value of `key` in the top-level object starts, or -1. */
function valueOfTopLevelKey(body: Buffer, key: string): number {
  let at = firstToken(body, 0);
  if (body[at] !== OPEN_OBJECT) return -1;
  const wanted = Buffer.from(JSON.stringify(key));
  at = firstToken(body, at + 1);
  while (at >= 0 && body[at] === QUOTE) {
    const keyEnd = skipString(body, at);
    if (keyEnd < 0) return -1;
    const colon = firstToken(body, keyEnd);
    if (body[colon] !== COLON) return -1;
    const value = firstToken(body, colon + 1);
    if (keyEnd - at === wanted.length && body.compare(wanted, 0, wanted.length, at, keyEnd) === 0) return value;
    const valueEnd = skipValue(body, value);
    if (valueEnd < 0) return -1;
    const next = firstToken(body, valueEnd);
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

/** The last position at or before `at` that is not whitespace, or -1. */
function lastToken(body: Buffer, at: number): number {
  for (let k = at; k >= 0; k--) {
    const c = body[k]!;
    if (c !== 32 && c !== 9 && c !== LF && c !== CR) return k;
  }
  return -1;
}

/** The name of an object's last member as parsed; undefined when integer-like names hide the order. */
function lastMemberName(object: object): string | undefined {
  const names = Object.keys(object);
  // Object.keys lists integer-like names first, whatever their place in the text.
  return names.some((name) => /^(?:0|[1-9]\d*)$/.test(name)) ? undefined : names.at(-1);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isDelimiter(c: number): boolean {
  return c === COMMA || c === CLOSE_ARRAY || c === CLOSE_OBJECT || c === 32 || c === 9 || c === LF || c === CR;
}
