import { basename, join } from 'node:path';
import { firstError } from '../pipeline/run-summary.js';
import { summaryLines } from '../pipeline/format-summary.js';
import type { ReportResult } from '../reports/index.js';
import type { JobResult } from '../schedule/run-job.js';

/** What one delivery says, the same for e-mail and webhook. */
export interface DeliveryMessage {
  subject: string;
  /** Plain text: the digests, or for an alert what failed. */
  text: string;
  /** Report pages that may travel: attached to e-mail, named by path in the webhook. */
  attachments: { name: string; path: string }[];
  /** True for a failed job's alert. */
  alert: boolean;
}

/**
 * The digest of a job that went well, or the alert of one that failed. A report that shows
 * personal data travels only as its digest unless the schedule says `personalData: true`.
 */
export function composeMessage(job: JobResult): DeliveryMessage {
  const { summary } = job;
  if (summary.status === 'failed') {
    const cause = job.error ?? firstError(summary) ?? 'a step failed';
    return {
      subject: `fanlake ${job.schedule} FAILED: ${oneLine(cause)}`,
      text: [
        `The scheduled job ${job.schedule} (slot ${job.slot.toISOString()}) failed.`,
        `run id: ${summary.runId}`,
        `first error: ${cause}`,
        '',
        ...summaryLines(summary),
      ].join('\n'),
      attachments: [],
      alert: true,
    };
  }
  const rendered = job.reports.filter((r) => r.status === 'ok');
  const mayTravel = (r: ReportResult) => r.dir !== undefined && (!r.personalData || job.personalData);
  const sections = rendered.map((r) => {
    const where = mayTravel(r) ? `\n\n(report: ${join(r.dir!, 'index.html')})` : r.personalData ? '\n\n(the full report shows personal data and stays on the server)' : '';
    return `${r.digest?.trim() ?? `# ${r.name}`}${where}`;
  });
  return {
    subject: `fanlake ${job.schedule}: ${rendered.length > 0 ? rendered.map((r) => r.name).join(', ') : 'run ok'} (${job.slot.toISOString().slice(0, 16).replace('T', ' ')} UTC)`,
    text: sections.length > 0 ? sections.join('\n\n---\n\n') : [`run ${summary.runId}: ok`, '', ...summaryLines(summary)].join('\n'),
    attachments: rendered.filter(mayTravel).map((r) => ({ name: `${r.name}-${basename(r.dir!)}.html`, path: join(r.dir!, 'index.html') })),
    alert: false,
  };
}

/** The first line of `text`, cut to a subject's length. */
export function oneLine(text: string): string {
  const line = text.split('\n')[0]!;
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
