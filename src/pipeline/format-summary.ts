import type { RunSummary, StepSummary } from './run-summary.js';

/** `rows 120, files 3`: a step's counts in one cell. */
export function formatCounts(counts: StepSummary['counts']): string {
  return Object.entries(counts)
    .filter(([, value]) => value !== 0)
    .map(([name, value]) => `${name} ${value}`)
    .join(', ');
}

/** One line per step, for logs, e-mails and alerts: `extract  ok  rows 120 (4.2 s)`. */
export function summaryLines(summary: RunSummary): string[] {
  return summary.steps.map((step) => {
    const detail = step.status === 'skipped' ? `skipped: ${step.reason ?? ''}` : `${step.status}${formatCounts(step.counts) ? `: ${formatCounts(step.counts)}` : ''} (${step.seconds} s)`;
    return `${step.step} ${detail}${step.error ? ` — ${step.error}` : ''}`;
  });
}
