import type { DeliveryMessage } from './message.js';

/** Slack's incoming-webhook limit for `text` is 40,000 characters; stay well below it. */
const MAX_TEXT = 35_000;

/**
 * The Slack-compatible body: `text` (shown by Slack, Mattermost, Rocket.Chat and Teams
 * workflows alike) with the digest and the paths of reports that may be linked.
 */
export function webhookBody(message: DeliveryMessage): { text: string } {
  const paths = message.attachments.map((a) => `report: ${a.path}`);
  const text = [`*${message.subject}*`, message.text, ...paths].join('\n\n');
  return { text: text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}\n…` : text };
}

/** Posts one message; throws on a network error or a non-2xx answer so the caller can retry. */
export async function postWebhook(url: string, message: DeliveryMessage): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(webhookBody(message)),
    signal: AbortSignal.timeout(30_000),
  });
  await response.body?.cancel();
  // The status alone: the URL carries the token, and an echoing server could repeat it.
  if (!response.ok) throw new Error(`webhook answered HTTP ${response.status}`);
}
