/**
 * Turning a response body into a value. Bodies are always read to the end or destroyed by
 * the caller, so keep-alive sockets go back to the pool instead of leaking.
 */

/** Bytes read from an error response; enough for an excerpt without downloading an HTML page. */
export const ERROR_BODY_LIMIT = 16 * 1024;

/**
 * Reads a whole body into one buffer; a connection that breaks midway rejects. undici's
 * own reader gathers the chunks: iterating the stream cost a promise per chunk and a copy,
 * which for many small engagement answers was much of the HTTP time.
 */
export async function readBody(body: { arrayBuffer(): Promise<ArrayBuffer> }): Promise<Buffer> {
  return Buffer.from(await body.arrayBuffer());
}

/**
 * Best-effort text of an error body: a body that breaks off still yields what arrived,
 * because the status, not the body, decides what happens next.
 */
export async function readErrorText(body: AsyncIterable<Uint8Array | string>): Promise<string> {
  const chunks: Buffer[] = [];
  try {
    await collect(body, chunks, ERROR_BODY_LIMIT);
  } catch {
    // Keep the partial text; a broken error body is not a reason to hide the status.
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Stopping early at `limit` destroys the stream (leaving a `for await` does), closing that socket. */
async function collect(
  body: AsyncIterable<Uint8Array | string>,
  chunks: Buffer[],
  limit: number,
): Promise<void> {
  let size = 0;
  for await (const chunk of body) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    chunks.push(buffer);
    size += buffer.length;
    if (size >= limit) break;
  }
}

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
  // A UTF-8 BOM is legal in the wild but not in JSON.parse.
  const text = buffer.toString('utf8').replace(/^\uFEFF/, '');
  if (!isJsonContentType(contentType)) return { ok: true, value: text };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    // The parser's message quotes the body, so it stays out of the error.
    return { ok: false, reason: `${buffer.length} bytes of JSON did not parse` };
  }
}
