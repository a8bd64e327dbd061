/** Turning a response body into a value. */

/** Bytes read from an error response; enough for an excerpt without downloading an HTML page. */
export const ERROR_BODY_LIMIT = 16 * 1024;

/** `application/json`, `application/problem+json` and the like. */
export function isJsonContentType(contentType: string | string[] | undefined): boolean {
  const value = Array.isArray(contentType) ? contentType[0] : contentType;
  return value !== undefined && /^[^;]*[/+]json\s*(;|$)/i.test(value);
}

/** The decoded body, or why JSON that the content type promised did not parse. */
export type DecodedBody = { ok: true; value: unknown } | { ok: false; reason: string };

/**
 * Parses JSON when the content type says JSON; otherwise returns the text as is (some
 * endpoints answer a plain string). A 204 has no body and decodes to `null`.
 */
export function decodeBody(
  buffer: Buffer,
  contentType: string | string[] | undefined,
  status: number,
): DecodedBody {
  if (status === 204 || status === 205) return { ok: true, value: null };
  const decoded = buffer.toString('utf8');
  // A UTF-8 BOM is legal in the wild but not in JSON.parse.
  const text = decoded.charCodeAt(0) === 0xfeff ? decoded.slice(1) : decoded;
  if (!isJsonContentType(contentType)) return { ok: true, value: text };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    // The parser's message quotes the body, so it stays out of the error.
    return { ok: false, reason: `${buffer.length} bytes of JSON did not parse` };
  }
}
