/**
 * Secret values known to this process. Everything fanlake prints or writes passes
 * through `redact`, so a token that leaks into an error message (for example inside a
 * URL echoed back by a server) is masked before anyone sees it.
 */
const secrets = new Set<string>();

export function registerSecret(value: string | undefined): void {
  if (value && value.length >= 4) secrets.add(value);
}

export function redact(text: string): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join('***');
  return out;
}

/** Shows that a secret is set without showing it. */
export function mask(value: string | undefined): string {
  return value ? `*** (${value.length} chars)` : '(not set)';
}
