import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LATEST, listRenderings, type MakeLink, publishRendering } from '../../src/reports/renderings.js';

// Some file systems (FAT on a USB stick, SMB shares, Windows without the privilege) refuse
// symbolic links: `symlink` fails there exactly like this, and `latest` must become a copy.
const refuseLinks: MakeLink = () => Promise.reject(Object.assign(new Error('EPERM: operation not permitted, symlink'), { code: 'EPERM' }));

/** A finished rendering in a staging folder, as render-reports leaves it. */
function staged(root: string, page: string): string {
  const dir = mkdtempSync(join(root, '.staging-'));
  writeFileSync(join(dir, 'index.html'), page);
  mkdirSync(join(dir, 'nested'));
  writeFileSync(join(dir, 'nested', 'data.csv'), `${page}\n`);
  return dir;
}

describe('publishRendering', () => {
  it('points latest at the newest rendering with a symlink, and with a full copy where links are refused, in either order', async () => {
    const reportDir = mkdtempSync(join(tmpdir(), 'fanlake-renderings-'));
    const latest = join(reportDir, LATEST);

    await publishRendering(reportDir, staged(reportDir, 'first'), '20261101T060000.000Z', 10);
    expect(lstatSync(latest).isSymbolicLink()).toBe(true);
    expect(readlinkSync(latest)).toBe('20261101T060000.000Z');

    await publishRendering(reportDir, staged(reportDir, 'second'), '20261102T060000.000Z', 10, refuseLinks);
    expect(lstatSync(latest).isDirectory()).toBe(true);
    expect(readFileSync(join(latest, 'index.html'), 'utf8')).toBe('second');
    expect(readFileSync(join(latest, 'nested', 'data.csv'), 'utf8')).toBe('second\n');
    // the link was removed, not the rendering it pointed at
    expect(readFileSync(join(reportDir, '20261101T060000.000Z', 'index.html'), 'utf8')).toBe('first');

    // a copy replaces a copy: nothing of the one before is left behind
    await publishRendering(reportDir, staged(reportDir, 'third'), '20261103T060000.000Z', 2, refuseLinks);
    expect(readFileSync(join(latest, 'index.html'), 'utf8')).toBe('third');
    expect(await listRenderings(reportDir)).toEqual(['20261102T060000.000Z', '20261103T060000.000Z']);

    await publishRendering(reportDir, staged(reportDir, 'fourth'), '20261104T060000.000Z', 2);
    expect(lstatSync(latest).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(latest, 'index.html'), 'utf8')).toBe('fourth');
    // only renderings, latest and nothing half-done: the copy is gone, no `.latest.next` stays
    expect(readdirSync(reportDir).sort()).toEqual(['20261103T060000.000Z', '20261104T060000.000Z', LATEST]);
  });
});
