import type { QueryValue } from './endpoint-declaration.js';

/** A path template split at its placeholders: text, name, text, name, ..., text. */
const templates = new Map<string, readonly string[]>();

/**
 * Fills `{name}` placeholders with URL-encoded values. A fan-out fills one template per
 * profile, so each template is split once.
 */
export function fillPath(path: string, params: Readonly<Record<string, string>> | undefined): string {
  if (!params) return path;
  let pieces = templates.get(path);
  if (pieces === undefined) {
    pieces = path.split(/\{(\w+)\}/);
    templates.set(path, pieces);
  }
  let filled = pieces[0]!;
  for (let k = 1; k < pieces.length; k += 2) {
    const name = pieces[k]!;
    filled += (name in params ? encodeURIComponent(params[name]!) : `{${name}}`) + pieces[k + 1]!;
  }
  return filled;
}

/**
 * A query as `URLSearchParams` writes it (`application/x-www-form-urlencoded`), without the
 * leading `?`; undefined values are left out. Built as text because a fan-out makes one
 * request per profile, and a `URL` with `searchParams` set one by one cost several
 * microseconds each time.
 */
export function queryText(query: Readonly<Record<string, QueryValue>>): string {
  let text = '';
  for (const name in query) {
    const value = query[name];
    if (value === undefined) continue;
    text += `${text === '' ? '' : '&'}${formEncode(name)}=${formEncode(typeof value === 'string' ? value : String(value))}`;
  }
  return text;
}

/** `path?query`, or the path alone when the query is empty. */
export function withQuery(path: string, query: Readonly<Record<string, QueryValue>>): string {
  const text = queryText(query);
  return text === '' ? path : `${path}?${text}`;
}

/** Characters the form encoding leaves as they are; most names and values are made of them only. */
const FORM_SAFE = /^[\w*.-]*$/;

function formEncode(text: string): string {
  // Anything else exactly as URLSearchParams writes it (a pair with an empty name is `=value`).
  return FORM_SAFE.test(text) ? text : new URLSearchParams([['', text]]).toString().slice(1);
}
