// Loaded into a benchmarked `fanlake extract` with NODE_OPTIONS="--import bench/phase-probe.mjs":
// where its time and memory go, written as JSON to $BENCH_PROBE_OUT at exit. Nothing in
// fanlake knows about it.
//
// - Timeline (undici's diagnostics channels): start-up until the first request is sent,
//   the requests, and the tail after the last response ends (last conversions, fsync,
//   manifests, state); requests in flight on average while any is, against the concurrency.
// - CPU of the main thread (HTTP, reading pages, validation, spool) against the others
//   (DuckDB writing Parquet on libuv's workers, file writes, fsync, V8's GC helpers).
// - With BENCH_PROBE_PROFILE=1, the main thread's samples (V8's profiler, 1 ms) by phase: each
//   sample goes to the nearest frame on its stack that one of PHASES names.
// - Memory, sampled every 50 ms: peaks of V8's heap, of buffers outside it, and of the rest
//   of the RSS (Node's and DuckDB's native memory).
import { subscribe } from 'node:diagnostics_channel';
import inspector from 'node:inspector';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';

const out = process.env.BENCH_PROBE_OUT;
const TICKS_PER_MS = 100 / 1000;

const timeline = { firstSentMs: undefined, lastEndedMs: undefined, requests: 0, inFlight: 0, inFlightArea: 0, busyMs: 0, lastChangeMs: 0 };
const now = () => performance.timeOrigin + performance.now() - startMs;
// The process's start, from the kernel: start-up includes Node's own boot.
const startMs = processStartMs();

function change(delta) {
  const at = now();
  if (timeline.inFlight > 0) {
    timeline.inFlightArea += timeline.inFlight * (at - timeline.lastChangeMs);
    timeline.busyMs += at - timeline.lastChangeMs;
  }
  timeline.inFlight += delta;
  timeline.lastChangeMs = at;
  return at;
}
subscribe('undici:client:sendHeaders', () => {
  const at = change(1);
  timeline.firstSentMs ??= at;
  timeline.requests++;
});
const ended = () => (timeline.lastEndedMs = change(-1));
subscribe('undici:request:trailers', ended);
subscribe('undici:request:error', ended);

const memory = { heapMb: 0, externalMb: 0, nativeMb: 0, rssMb: 0 };
const sampler = setInterval(() => {
  const m = process.memoryUsage();
  const mb = (n) => n / 1048576;
  memory.heapMb = Math.max(memory.heapMb, mb(m.heapTotal));
  memory.externalMb = Math.max(memory.externalMb, mb(m.external));
  memory.nativeMb = Math.max(memory.nativeMb, mb(m.rss - m.heapTotal - m.external));
  memory.rssMb = Math.max(memory.rssMb, mb(m.rss));
}, 50);
sampler.unref();

/** Phase of a stack frame, by function name and file; the first rule that matches wins. */
const PHASES = [
  ['GC', (f) => f.functionName === '(garbage collector)'],
  ['idle (waiting on I/O)', (f) => f.functionName === '(idle)'],
  ['validation', (f) => f.url.endsWith('/sources/fields.js')],
  ['reading pages from their bytes', (f) => f.url.endsWith('/spool/page-scanner.js')],
  ['finding item bytes', (f) => f.url.endsWith('/spool/raw-items.js')],
  ['decode + JSON.parse', (f) => f.functionName === 'decodeBody'],
  ['HTTP (undici, sockets, body)', (f) => f.url.includes('/undici/') || f.url.endsWith('/http/response-body.js') || /node:(net|stream|internal\/streams)/.test(f.url)],
  ['spool (JSON lines, writes, quarantine)', (f) => /\/spool\/(parquet-spool|quarantine-writer|json-lines)\.js$/.test(f.url)],
  ['paging, sink, progress', (f) => /\/extract\/(resource-sink|date-window-extractor|progress)\.js$|\/paging\/|\/engine\//.test(f.url)],
  ['start-up (loading modules)', (f) => /node:internal\/modules|cjs-module-lexer|compile/.test(f.url + f.functionName)],
];

let session;
if (process.env.BENCH_PROBE_PROFILE === '1') {
  session = new inspector.Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 1000 });
  session.post('Profiler.start');
}

function phasesOf(profile) {
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const phaseOfNode = new Map();
  const phaseOf = (node) => {
    if (phaseOfNode.has(node.id)) return phaseOfNode.get(node.id);
    const rule = PHASES.find(([, test]) => test(node.callFrame));
    const up = parent.get(node.id);
    const phase = rule ? rule[0] : up ? phaseOf(up) : 'other';
    phaseOfNode.set(node.id, phase);
    return phase;
  };
  const ms = {};
  profile.samples.forEach((id, k) => {
    const phase = phaseOf(byId.get(id));
    ms[phase] = (ms[phase] ?? 0) + (profile.timeDeltas[k] ?? 0) / 1000;
  });
  return ms;
}

/**
 * CPU ms of the main thread (HTTP, JSON.parse, validation, spool) and of the others
 * (DuckDB writing Parquet on libuv's workers, file writes, fsync, V8's GC helpers), from
 * each thread's utime + stime.
 */
function threadCpu() {
  const cpu = {};
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const fields = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
      // Node 20 names every thread "node": the main thread is told apart by its id only.
      const kind = Number(tid) === process.pid ? 'main' : 'others';
      cpu[kind] = (cpu[kind] ?? 0) + (Number(fields[11]) + Number(fields[12])) / TICKS_PER_MS;
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  return cpu;
}

function processStartMs() {
  const startTicks = Number(readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ')[19]);
  const uptimeMs = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]) * 1000;
  return performance.timeOrigin + performance.now() - (uptimeMs - startTicks / TICKS_PER_MS);
}

process.on('exit', () => {
  if (!out) return;
  const endMs = now();
  let profile;
  session?.post('Profiler.stop', (error, result) => (profile = result?.profile));
  const report = {
    wallMs: endMs,
    startupMs: timeline.firstSentMs,
    requestsMs: (timeline.lastEndedMs ?? 0) - (timeline.firstSentMs ?? 0),
    tailMs: endMs - (timeline.lastEndedMs ?? endMs),
    requests: timeline.requests,
    meanInFlight: timeline.busyMs > 0 ? timeline.inFlightArea / timeline.busyMs : 0,
    idleMs: (timeline.lastEndedMs ?? 0) - (timeline.firstSentMs ?? 0) - timeline.busyMs,
    cpuMs: threadCpu(),
    mainThreadMs: profile ? phasesOf(profile) : undefined,
    memory,
  };
  writeFileSync(out, JSON.stringify(report));
});
