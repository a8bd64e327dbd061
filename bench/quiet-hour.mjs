// Quiet-hour benchmark: after a first run, 0.1% of the customer profiles change
// and a `fanlake run` follows, once with the push subscription (`fanlake listen` recording
// the changes, the run re-reading only them) and once without (a full engagement snapshot,
// as every run did before), from copies of one data directory. Prints the engagement
// requests, the raw bytes written and the wall time of each, as ratios; then a run right
// after the targeted one, with nothing changed.
import { cpSync, rmSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { BIN, bytesUnder, CREDENTIALS, fmt, runOk, startSimulator, tempDir } from './lib.mjs';

const SECRET = 'bench-listen-secret-0123456789abcdefABCDEF';
const CHANGED_SHARE = 0.001;

/** Starts `fanlake listen --port 0`; resolves once it is ready (subscription validated). */
function startListener(env) {
  const child = spawn(BIN, ['listen', '--port', '0'], { env: { ...process.env, ...CREDENTIALS, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (/listening on /.test(out)) resolve({ stop: () => new Promise((done) => (child.once('exit', done), child.kill('SIGTERM'))) });
    });
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('exit', (code) => reject(new Error(`fanlake listen exited with ${code}: ${err.slice(-1000)}`)));
  });
}

/** One `fanlake run` as JSON: wall time, the engagement requests its extract made, the raw bytes it wrote. */
async function measuredRun(env, dataDir) {
  const rawBefore = bytesUnder(join(dataDir, 'raw'));
  const run = await runOk(['run', '--format', 'json'], env);
  const summary = JSON.parse(run.stdout);
  const extract = summary.steps.find((step) => step.step === 'extract');
  const engagement = extract.results.filter((result) => result.name.startsWith('engagement.'));
  const requests = engagement.reduce((sum, result) => sum + (result.counts.requests ?? 0), 0);
  const seconds = Object.fromEntries(summary.steps.map((step) => [step.step, step.seconds]));
  return { wallMs: run.wallMs, requests, rawBytes: bytesUnder(join(dataDir, 'raw')) - rawBefore, seconds };
}

const steps = (r) => `extract ${fmt(r.seconds.extract, 1)}, load ${fmt(r.seconds.load, 1)}, build ${fmt(r.seconds.build, 1)}, check ${fmt(r.seconds.check, 1)}, report ${fmt(r.seconds.report, 1)} s`;

export async function benchQuietHour({ scale }) {
  const sim = await startSimulator(['--scale', String(scale), '--admin']);
  const targeted = tempDir('fanlake-bench-quiet-');
  const full = tempDir('fanlake-bench-full-');
  const common = { FANLAKE_TICKETING_URL: sim.url, FANLAKE_ENGAGEMENT_URL: sim.url, FANLAKE_LISTEN_SECRET: SECRET };
  const envA = { ...common, FANLAKE_DATA_DIR: targeted };
  const envB = { ...common, FANLAKE_DATA_DIR: full };
  const listener = await startListener(envA);
  try {
    // The first run, as in production: everything read, loaded and built.
    await runOk(['extract'], envA);
    await runOk(['load'], envA);
    await runOk(['build'], envA);
    // The same start without the receiver: each quiet run takes a full snapshot, as before.
    cpSync(targeted, full, { recursive: true });
    rmSync(join(full, 'listen'), { recursive: true, force: true });
    rmSync(join(full, 'state', 'engagement-snapshots.json'), { force: true });

    const { engagement } = await (await fetch(`${sim.url}/__admin/info`)).json();
    const count = Math.max(1, Math.round(engagement.customer_profiles * CHANGED_SHARE));
    await fetch(`${sim.url}/__admin/engagement/customer_profiles/change`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count }) });
    const push = await (await fetch(`${sim.url}/__admin/push?idle=true`)).json();

    const withSubscription = await measuredRun(envA, targeted);
    const without = await measuredRun(envB, full);
    const nothing = await measuredRun(envA, targeted);
    // Planning a targeted run reads the subscription once, outside the extract's counts.
    const a = withSubscription.requests + 1;
    const n = nothing.requests + 1;
    return [
      [`quiet hour, scale ${scale}: ${fmt(count)} of ${fmt(engagement.customer_profiles)} profiles changed (${fmt(push.deliveredChanges)} pushed)`, '', '', ''],
      ['  engagement requests, with / without subscription', `${fmt(a)} / ${fmt(without.requests)}`, `ratio ${fmt(a / without.requests, 4)}`, a / without.requests < 0.01 ? 'ok (< 1%)' : 'MISSED (< 1%)'],
      ['  raw bytes written, with / without', `${fmt(withSubscription.rawBytes / 1024)} KB / ${fmt(without.rawBytes / 1048576, 1)} MB`, `ratio ${fmt(withSubscription.rawBytes / without.rawBytes, 4)}`, withSubscription.rawBytes < 1048576 ? 'ok (< 1 MB)' : 'MISSED (< 1 MB)'],
      ['  run wall time, with / without', `${fmt(withSubscription.wallMs / 1000, 1)} s / ${fmt(without.wallMs / 1000, 1)} s`, `ratio ${fmt(withSubscription.wallMs / without.wallMs, 2)}`, withSubscription.wallMs < without.wallMs / 10 ? 'ok (< 0.1)' : 'MISSED (< 0.1)'],
      ['    steps with subscription', steps(withSubscription), '', ''],
      ['    steps without', steps(without), '', ''],
      ['  the run right after, nothing changed', `${fmt(n)} engagement requests, ${fmt(nothing.rawBytes / 1024)} KB raw, ${fmt(nothing.wallMs / 1000, 1)} s (${steps(nothing)})`, `ratio ${fmt(n / without.requests, 5)} of a full snapshot's requests`, ''],
    ];
  } finally {
    await listener.stop();
    await sim.stop();
    rmSync(targeted, { recursive: true, force: true });
    rmSync(full, { recursive: true, force: true });
  }
}
