/**
 * The spool's format: JSON lines, one record per line. DuckDB reads it faster than one JSON
 * array of the same records, and bytes as received become lines in place, by rewriting separators
 * and whitespace only: a raw line break is never inside a JSON string, so every line break
 * in valid JSON lies between tokens and a space means the same there. Values stay exactly as
 * the API sent them.
 */

const LINE_BREAK = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const SPACE = 0x20;
const COMMA = 0x2c;

/**
 * Makes one JSON value one line, in place: its line breaks between tokens become spaces.
 * `bytes` must be valid JSON (a record the scanner or JSON.parse accepted).
 */
export function asOneLine(bytes: Buffer): Buffer {
  blank(bytes, LINE_BREAK);
  blank(bytes, CARRIAGE_RETURN);
  return bytes;
}

/** Turns every `byte` of `bytes` into a space; Buffer.indexOf finds them without a loop in JavaScript. */
function blank(bytes: Buffer, byte: number): void {
  for (let at = bytes.indexOf(byte); at >= 0; at = bytes.indexOf(byte, at + 1)) bytes[at] = SPACE;
}

/**
 * Makes consecutive elements of a JSON array one line each, in place, and returns their
 * bytes: `spans` holds each element's start and end (exclusive) in `body`, in order, with
 * only whitespace and one comma between neighbours; that comma becomes the line break.
 */
export function elementsAsLines(body: Buffer, spans: readonly number[]): Buffer {
  if (spans.length === 0) return body.subarray(0, 0);
  const lines = asOneLine(body.subarray(spans[0]!, spans[spans.length - 1]!));
  for (let k = 2; k < spans.length; k += 2) body[body.indexOf(COMMA, spans[k - 1]!)] = LINE_BREAK;
  return lines;
}

/** Serialized records as JSON lines (JSON.stringify never writes a raw line break). */
export function recordsAsLines(records: readonly Record<string, unknown>[]): Buffer {
  return Buffer.from(records.map((record) => JSON.stringify(record)).join('\n'));
}
