import type { QueryValue } from './endpoint-declaration.js';
import { withQuery } from './request-target.js';

/** How to reach one source: its base URL and the credential it expects. */
export interface SourceConnection {
  readonly source: 'ticketing' | 'engagement';
  readonly baseUrl: string;
  /** The Authorization header value; a secret, registered for redaction. */
  readonly authorization: string;
  /** What a 401 tells the user to check (an environment variable name, never the value). */
  readonly credentialHint: string;
}

/** A source is either usable or skipped with a reason the user can act on. */
export type ConnectionOutcome = { connection: SourceConnection } | { skipped: string };

/**
 * Joins a base URL and an API path without doubling or dropping slashes, with the query as
 * `URLSearchParams` writes it (undefined values left out). Built as text: a fan-out makes
 * one request per profile (see `withQuery`).
 */
export function endpointUrl(baseUrl: string, path: string, query: Readonly<Record<string, QueryValue>> = {}): string {
  return baseUrl.replace(/\/+$/, '') + withQuery(path, query);
}
