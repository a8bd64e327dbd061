import type { Config } from '../config/load-config.js';
import { redact } from '../core/secrets.js';
import { errorMessage, UsageError } from '../core/errors.js';
import { backoffDelay } from '../core/backoff.js';
import type { JobResult } from '../schedule/run-job.js';
import type { Schedule } from '../schedule/schedule-config.js';
import type { DeliveryRecord } from '../schedule/schedule-log.js';
import { sendEmail, type SmtpSettings } from './email.js';
import { composeMessage, type DeliveryMessage } from './message.js';
import { postWebhook } from './webhook.js';

/** A channel ready to send: checked once when the scheduler starts, so a typo fails fast. */
interface Channel {
  name: DeliveryRecord['channel'];
  send(message: DeliveryMessage): Promise<void>;
}

/**
 * The channels a schedule delivers to. A channel the schedule asks for but the configuration
 * lacks is a UsageError (exit 2) naming the missing setting.
 */
function channelsFor(schedule: Pick<Schedule, 'name' | 'deliver'>, config: Config): Channel[] {
  const channels: Channel[] = [];
  const { email, webhook } = schedule.deliver;
  if (email) {
    const host = config['smtp.host'];
    const from = config['smtp.from'];
    const to = typeof email === 'object' ? email.to : config['smtp.to'];
    const missing = [!host && 'FANLAKE_SMTP_HOST', !from && 'FANLAKE_SMTP_FROM', to.length === 0 && 'FANLAKE_SMTP_TO (or deliver.email.to)'].filter(Boolean);
    if (missing.length > 0) throw new UsageError(`schedule ${schedule.name}: delivers e-mail but ${missing.join(', ')} is not set`, { schedule: schedule.name });
    const smtp: SmtpSettings = { host: host!, port: config['smtp.port'], user: config['smtp.user'], password: config['smtp.password'], from: from! };
    channels.push({ name: 'email', send: (message) => sendEmail(smtp, to, message) });
  }
  if (webhook) {
    const url = config['webhook.url'];
    if (!url) throw new UsageError(`schedule ${schedule.name}: delivers to a webhook but FANLAKE_WEBHOOK_URL is not set (environment or .env)`, { schedule: schedule.name });
    channels.push({ name: 'webhook', send: (message) => postWebhook(url, message) });
  }
  return channels;
}

/**
 * What a scheduled job calls once it is done: composes its digest or alert and delivers it on
 * the schedule's channels, retried as the settings say; nothing for a schedule without any.
 * The channels are checked here, when the scheduler starts (see channelsFor).
 */
export function delivererFor(schedule: Pick<Schedule, 'name' | 'deliver'>, config: Config): (job: JobResult, signal: AbortSignal) => Promise<DeliveryRecord[]> {
  const send = sender(channelsFor(schedule, config), config);
  return (job, signal) => send(composeMessage(job), signal);
}

/**
 * What delivers the scheduler's own notices (the push receiver down, and back): the channels
 * the schedules use, e-mail to `smtp.to` (or, without it, to every recipient a schedule
 * names) and the webhook once; nothing when no schedule delivers anywhere.
 */
export function noticeDelivererFor(schedules: readonly Pick<Schedule, 'name' | 'deliver'>[], config: Config): (message: DeliveryMessage, signal: AbortSignal) => Promise<DeliveryRecord[]> {
  const emails = schedules.map((s) => s.deliver.email).filter((email) => email !== undefined && email !== false);
  const named = [...new Set(emails.flatMap((email) => (typeof email === 'object' ? email.to : [])))];
  const email = emails.length === 0 ? undefined : config['smtp.to'].length > 0 || named.length === 0 ? true : { to: named };
  const webhook = schedules.some((s) => s.deliver.webhook === true);
  return sender(channelsFor({ name: 'receiver notices', deliver: { ...(email ? { email } : {}), ...(webhook ? { webhook } : {}) } }, config), config);
}

/** Sends a message on `channels` with the configured retries; nothing without channels. */
function sender(channels: readonly Channel[], config: Config): (message: DeliveryMessage, signal: AbortSignal) => Promise<DeliveryRecord[]> {
  return async (message, signal) =>
    channels.length === 0 ? [] : deliver(channels, message, { maxAttempts: config['delivery.maxAttempts'], retrySeconds: config['delivery.retrySeconds'], signal });
}

export interface RetryOptions {
  maxAttempts: number;
  /** Upper bound of the first wait; doubles with each failed attempt. */
  retrySeconds: number;
  /** Cuts the waits short when the scheduler stops (the attempt in flight still finishes). */
  signal?: AbortSignal;
}

/**
 * Sends `message` on every channel, each retried with backoff; never throws. The result says
 * per channel whether it went out; a failure is recorded, and the rendered report stays on disk.
 */
export async function deliver(channels: readonly Channel[], message: DeliveryMessage, retry: RetryOptions): Promise<DeliveryRecord[]> {
  return Promise.all(channels.map((channel) => sendWithRetries(channel, message, retry)));
}

async function sendWithRetries(channel: Channel, message: DeliveryMessage, retry: RetryOptions): Promise<DeliveryRecord> {
  let lastError = '';
  for (let attempt = 1; attempt <= retry.maxAttempts; attempt += 1) {
    try {
      await channel.send(message);
      return { channel: channel.name, status: 'sent', attempts: attempt };
    } catch (error) {
      lastError = redact(errorMessage(error));
      if (attempt === retry.maxAttempts || retry.signal?.aborted) return { channel: channel.name, status: 'failed', attempts: attempt, error: lastError };
      const baseDelayMs = retry.retrySeconds * 1000;
      // Never less than half the ceiling: a full-jitter zero would spend the attempts at once.
      const wait = baseDelayMs * 2 ** (attempt - 1) / 2 + backoffDelay(attempt, { baseDelayMs, maxDelayMs: 15 * 60_000 }) / 2;
      await sleep(wait, retry.signal);
    }
  }
  return { channel: channel.name, status: 'failed', attempts: retry.maxAttempts, error: lastError };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}
