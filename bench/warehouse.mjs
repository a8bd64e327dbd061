// Warehouse benchmark: full load + build at a scale, then an incremental load + build after
// 1% of the ticketing records changed (extraction not counted), as a ratio of the full one;
// then check and the rendering of every report in reports/ from that warehouse.
import { CREDENTIALS, fmt, runMeasured, startSimulator, tempDir } from './lib.mjs';

const TICKETING = ['users', 'members', 'tickets', 'merchandise', 'user_permissions'];

async function timed(args, env) {
  const run = await runMeasured(args, env);
  if (run.code !== 0) throw new Error(`fanlake ${args.join(' ')} failed: ${run.stderr.slice(-2000)}`);
  return run.wallMs;
}

export async function benchWarehouse({ scale }) {
  const sim = await startSimulator(['--scale', String(scale), '--admin']);
  try {
    const dataDir = tempDir('fanlake-bench-wh-');
    const env = { FANLAKE_TICKETING_URL: sim.url, FANLAKE_ENGAGEMENT_URL: sim.url, FANLAKE_DATA_DIR: dataDir, ...CREDENTIALS };
    await timed(['extract'], env);
    const fullLoad = await timed(['load'], env);
    const fullBuild = await timed(['build'], env);

    const info = await (await fetch(`${sim.url}/__admin/info`)).json();
    for (const resource of TICKETING) {
      const count = Math.max(1, Math.round(info.ticketing[resource] * 0.01));
      await fetch(`${sim.url}/__admin/ticketing/${resource}/touch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count }) });
    }
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await timed(['extract', '--source', 'ticketing'], env);
    const incLoad = await timed(['load'], env);
    const incBuild = await timed(['build'], env);
    const idleBuild = await timed(['build'], env);
    await timed(['check'], env).catch(() => undefined); // a failing test still records its results for the reports
    const report = await runMeasured(['report'], env);
    if (report.code !== 0) throw new Error(`fanlake report failed: ${report.stderr.slice(-2000)}`);
    const reports = report.stdout.split('\n').filter((line) => line.startsWith('ok ')).length;

    const full = fullLoad + fullBuild;
    const incremental = incLoad + incBuild;
    const ratio = incremental / full;
    return [
      ['warehouse, scale ' + scale, `full load ${fmt(fullLoad / 1000, 1)} s + build ${fmt(fullBuild / 1000, 1)} s`, `${fmt(full / 1000, 1)} s`, ''],
      ['  after 1% of ticketing changed', `load ${fmt(incLoad / 1000, 1)} s + build ${fmt(incBuild / 1000, 1)} s`, `ratio ${fmt(ratio, 2)}`, ratio <= 0.15 ? 'ok (<= 0.15)' : 'MISSED (<= 0.15)'],
      ['  build with nothing new', `${fmt(idleBuild / 1000, 1)} s`, `ratio ${fmt(idleBuild / fullBuild, 2)} of the full build`, ''],
      ['  render all reports', `${reports} reports, peak RSS ${fmt(report.peakMb, 0)} MB`, `${fmt(report.wallMs / 1000, 1)} s`, ''],
    ];
  } finally {
    await sim.stop();
  }
}
