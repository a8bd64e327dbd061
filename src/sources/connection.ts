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

/** Joins a base URL and an API path without doubling or dropping slashes. */
export function endpointUrl(baseUrl: string, path: string, query: Record<string, string | number | undefined> = {}): URL {
  const url = new URL(baseUrl.replace(/\/+$/, '') + path);
  for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, String(value));
  return url;
}
