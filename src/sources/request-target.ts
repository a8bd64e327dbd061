import type { QueryValue } from './endpoint-declaration.js';

/** Fills `{name}` placeholders with URL-encoded values. */
export function fillPath(path: string, params: Readonly<Record<string, string>> | undefined): string {
  return params ? path.replace(/\{(\w+)\}/g, (placeholder, name: string) => (name in params ? encodeURIComponent(params[name]!) : placeholder)) : path;
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
