// The full identity build (`build --select +fan_identity_links --full-refresh`) of this checkout
// and of another, in turns, on one noisy warehouse: the goal that "the new full build is no slower"
// (than b83438f, the matching when it was filed). One run of each says little on a shared
// machine, so the two alternate for a number of rounds, each from a copy of the same loaded
// warehouse, and every round prints its own ratio.
// With --trained, this checkout's identity model is trained once on the loaded warehouse and put
// in force (`identity train --apply`, which builds once: its time printed), so each round
// measures a full build with a model in force and its statistics frozen, as every build but the
// first is; without it each round of this checkout trains too.
// With --loaded <data dir>, a warehouse loaded (and trained) earlier is used as it is, instead of
// extracting and loading one.
// Each version first builds once, untimed, on a copy of its own (`build --select
// +fan_identity_links`), and every round starts from that copy: a club's full refresh follows
// earlier builds, so its SQL is parsed (the parse cache) and its macros are in place; a version
// measured on a warehouse another version built last would pay for both once per round.
// With --also <checkout>, a third version with an identity model of its own (an earlier commit of
// this one, say) is measured in the same rounds, on its own copy trained by its own code (with
// --trained), and compared with this checkout: what a change to the model costs.
// Usage: node bench/identity-full-build.mjs --against <checkout> [--also <checkout>] [--rounds 3] [--scale 10] [--seed 11] [--trained] [--loaded <data dir>]
//   <checkout>: another fanlake checkout, installed and built, e.g.
//   git worktree add /tmp/b83438f b83438f && (cd /tmp/b83438f && npm ci && make setup)
import { cpSync, existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BIN, CREDENTIALS, flag, fmt, runOk, startSimulator, tempDir } from './lib.mjs';

const against = flag('--against');
if (!against) {
  console.error('usage: node bench/identity-full-build.mjs --against <checkout> [--also <checkout>] [--rounds 3] [--scale 10] [--seed 11] [--trained] [--loaded <data dir>]');
  process.exit(2);
}
const also = flag('--also');
for (const checkout of [against, also].filter(Boolean)) {
  if (existsSync(join(resolve(checkout), 'dist'))) continue;
  console.error(`${checkout} is not built: run npm ci && make setup there first`);
  process.exit(2);
}
const otherBin = join(resolve(against), 'bin', 'fanlake');
const rounds = Number(flag('--rounds') ?? 3);
const scale = flag('--scale') ?? '10';
const seed = flag('--seed') ?? '11';

const root = tempDir('fanlake-bench-full-identity-');
try {
  const loaded = flag('--loaded') ?? join(root, 'loaded');
  if (!flag('--loaded')) {
    console.log(`preparing a noisy warehouse at scale ${scale}, seed ${seed} ...`);
    const sim = await startSimulator(['--scale', scale, '--seed', seed, '--noise']);
    try {
      const env = { FANLAKE_TICKETING_URL: sim.url, FANLAKE_ENGAGEMENT_URL: sim.url, FANLAKE_DATA_DIR: loaded, ...CREDENTIALS };
      await runOk(['extract'], env);
      await runOk(['load'], env);
    } finally {
      await sim.stop();
    }
  }
  // The third version's own copy of the loaded warehouse, trained by its own code: a model of this checkout's levels is not its model.
  const alsoLoaded = join(root, 'also-loaded');
  if (also) cpSync(loaded, alsoLoaded, { recursive: true });
  if (process.argv.includes('--trained')) {
    const trained = await runOk(['identity', 'train', '--apply'], { FANLAKE_DATA_DIR: loaded });
    console.log(`identity model trained and put in force on the loaded warehouse: ${fmt(trained.wallMs / 1000, 1)} s wall, ${fmt(trained.cpuMs / 1000, 1)} s CPU (with its builds)`);
    if (also) {
      const alsoTrained = await runOk(['identity', 'train', '--apply'], { FANLAKE_DATA_DIR: alsoLoaded }, { bin: join(resolve(also), 'bin', 'fanlake') });
      console.log(`and by ${also}: ${fmt(alsoTrained.wallMs / 1000, 1)} s wall, ${fmt(alsoTrained.cpuMs / 1000, 1)} s CPU`);
    }
  }

  const versions = [
    ['other', otherBin, loaded],
    ...(also ? [['also', join(resolve(also), 'bin', 'fanlake'), alsoLoaded]] : []),
    ['this', BIN, loaded],
  ];
  for (const version of versions) {
    const [name, bin, source] = version;
    const warm = join(root, `warm-${name}`);
    cpSync(source, warm, { recursive: true });
    await runOk(['build', '--select', '+fan_identity_links'], { FANLAKE_DATA_DIR: warm }, { bin });
    version[2] = warm;
  }
  const args = ['build', '--select', '+fan_identity_links', '--full-refresh'];
  const data = join(root, 'data');
  for (let round = 1; round <= rounds; round++) {
    const measured = {};
    for (const [name, bin, source] of versions) {
      rmSync(data, { recursive: true, force: true });
      cpSync(source, data, { recursive: true });
      measured[name] = await runOk(args, { FANLAKE_DATA_DIR: data }, { bin });
    }
    const { this: mine, other, also: third } = measured;
    console.log(
      `round ${round}: this ${fmt(mine.wallMs / 1000, 2)} s wall, ${fmt(mine.cpuMs / 1000, 1)} s CPU, ${fmt(mine.peakMb)} MB;` +
        ` other ${fmt(other.wallMs / 1000, 2)} s wall, ${fmt(other.cpuMs / 1000, 1)} s CPU, ${fmt(other.peakMb)} MB;` +
        ` ratio wall ${fmt(mine.wallMs / other.wallMs, 2)}, CPU ${fmt(mine.cpuMs / other.cpuMs, 2)}` +
        (third ? `; also ${fmt(third.cpuMs / 1000, 1)} s CPU, this / also CPU ${fmt(mine.cpuMs / third.cpuMs, 2)}` : ''),
    );
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
