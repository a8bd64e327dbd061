import { SerialQueue } from '../core/serial-queue.js';
import type { ReceiverOutage } from '../schedule/receiver-supervisor.js';
import type { DeliveryRecord, ReceiverLogEntry } from '../schedule/schedule-log.js';
import { type DeliveryMessage, oneLine } from './message.js';

/** What the scheduler tells of its receiver: one alert per outage, one notice when it is back. */
export interface ReceiverNotices {
  down(outage: ReceiverOutage): void;
  up(outage: ReceiverOutage, at: Date): void;
  /** Resolves once every notice queued so far is delivered (or has failed) and logged. */
  settled(): Promise<void>;
}

/**
 * Delivers the receiver's outage alert and recovery notice through `send` (deliver.ts
 * `noticeDelivererFor`), one after the other so the log keeps their order, and records each
 * with its deliveries through `log` (the schedule log).
 */
export function receiverNotices(options: {
  dataDir: string;
  send: (message: DeliveryMessage, signal: AbortSignal) => Promise<DeliveryRecord[]>;
  log: (entry: ReceiverLogEntry) => void;
  /** Cuts delivery retries short when the scheduler stops. */
  signal: AbortSignal;
}): ReceiverNotices {
  const queue = new SerialQueue();
  const notify = (entry: ReceiverLogEntry, message: DeliveryMessage) =>
    void queue
      .run(async () => {
        const deliveries = await options.send(message, options.signal);
        options.log({ ...entry, ...(deliveries.length > 0 ? { deliveries } : {}) });
      })
      // `send` never throws; a log that cannot be written (a full disk) must not end the scheduler.
      .catch(() => undefined);
  return {
    down(outage) {
      notify({ receiver: 'down', at: outage.since.toISOString(), error: outage.error }, outageMessage(options.dataDir, outage));
    },
    up(outage, at) {
      notify({ receiver: 'up', at: at.toISOString(), since: outage.since.toISOString() }, recoveryMessage(options.dataDir, outage, at));
    },
    settled: () => queue.idle(),
  };
}

function outageMessage(dataDir: string, outage: ReceiverOutage): DeliveryMessage {
  return {
    subject: `fanlake push receiver DOWN: ${oneLine(outage.error)}`,
    text: [
      `The push receiver of ${dataDir} failed at ${outage.since.toISOString()}: ${outage.error}`,
      '',
      'Scheduled jobs go on; until the receiver is back, their runs take full engagement snapshots instead of re-reading the changed profiles, so no change is lost.',
      'fanlake schedule restarts the receiver with backoff. This is the only alert of this outage; a notice follows when the receiver is back.',
      'fanlake status shows the receiver; docs/operations.md, "The push receiver", what to check.',
    ].join('\n'),
    attachments: [],
    alert: true,
  };
}

function recoveryMessage(dataDir: string, outage: ReceiverOutage, at: Date): DeliveryMessage {
  const minutes = Math.max(1, Math.round((at.getTime() - outage.since.getTime()) / 60_000));
  return {
    subject: `fanlake push receiver is back (down ${minutes} min)`,
    text: [
      `The push receiver of ${dataDir} records changes again since ${at.toISOString()}; it failed at ${outage.since.toISOString()} (${outage.error}).`,
      'The next run takes a full engagement snapshot, which covers the changes of the outage.',
    ].join('\n'),
    attachments: [],
    alert: false,
  };
}
