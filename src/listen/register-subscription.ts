import { CODE } from '../core/error-codes.js';
import { FanlakeError } from '../core/errors.js';
import type { ReceiverServer } from './receiver-server.js';
import type { PushSubscription, SubscriptionApi } from './subscription-api.js';

/** How long the receiver waits for the validation token the platform sends to its callback. */
export const VALIDATION_TIMEOUT_MS = 30_000;

/**
 * Makes the organization's CustomerProfile subscription point at `callbackUrl`, enabled and
 * validated, with as few calls as the state allows:
 *
 * - one with this URL, validated: enabled if it is not; nothing else;
 * - one with this URL, never validated: its token cannot be asked for again, so it is
 *   deleted and made anew;
 * - ours at another URL (the receiver's earlier id, after the secret or the public URL
 *   changed): its URL is changed, which the platform applies once the new URL (this
 *   receiver) answers the validation call;
 * - none: created.
 *
 * A new or changed URL gets a token at the callback, which is sent back in a PUT with
 * `isEnabled: true`. The receiver must already be listening.
 */
export async function registerSubscription(options: {
  api: SubscriptionApi;
  server: ReceiverServer;
  callbackUrl: string;
  /** The subscription this data directory's receiver used before, if any. */
  previousId?: string;
  publicUrl: string;
  timeoutMs?: number;
}): Promise<PushSubscription> {
  const { api, server, callbackUrl, previousId } = options;
  const existing = await api.list();
  let ours = existing.find((s) => s.url === callbackUrl) ?? existing.find((s) => s.id === previousId);
  if (ours?.url === callbackUrl) {
    if (ours.isValidated) return ours.isEnabled ? ours : api.update(ours.id, { isEnabled: true });
    await api.delete(ours.id);
    ours = undefined;
  }
  const id = ours ? (await api.update(ours.id, { url: callbackUrl })).id : (await api.create(callbackUrl)).id;
  const token = await server.validationToken(id, options.timeoutMs ?? VALIDATION_TIMEOUT_MS);
  if (token === undefined) {
    throw new FanlakeError(
      CODE.E_LISTEN_VALIDATION,
      `the platform's validation call did not reach ${options.publicUrl} within ${Math.round((options.timeoutMs ?? VALIDATION_TIMEOUT_MS) / 1000)} s: check that it is reachable from the internet and forwarded to this receiver (FANLAKE_LISTEN_PUBLIC_URL)`,
      { context: { source: 'engagement', resource: 'subscriptions' } },
    );
  }
  return api.update(id, { validationToken: token, isEnabled: true });
}
