import { deflateSync } from 'node:zlib';
import { hash32 } from '../../random.js';

export const FILE_ID_BASE = 800_001;

/**
 * Stream entry draft media: ids `FILE_ID_BASE ..` with a small deterministic PNG each
 * (an 8×8 tile whose colour comes from the seed and id). Replacements (the write side)
 * go into `replaced`.
 */
export class Files {
  readonly count: number;
  readonly replaced = new Map<string, { bytes: Buffer; contentType: string }>();

  constructor(
    private readonly seed: number,
    scale: number,
  ) {
    this.count = Math.round(50 * Math.max(1, Math.sqrt(scale)));
  }

  ids(): string[] {
    return Array.from({ length: this.count }, (_, k) => String(FILE_ID_BASE + k));
  }

  /** The file's content, or undefined for an unknown resource id. */
  get(resourceId: string): { bytes: Buffer; contentType: string } | undefined {
    const replaced = this.replaced.get(resourceId);
    if (replaced) return replaced;
    if (!/^\d+$/.test(resourceId)) return undefined;
    const k = Number(resourceId) - FILE_ID_BASE;
    if (k < 0 || k >= this.count) return undefined;
    const colour = hash32(this.seed, k);
    return { bytes: png(8, 8, [colour >>> 16, colour >>> 8, colour].map((c) => c & 0xff) as [number, number, number]), contentType: 'image/png' };
  }
}

/** A minimal valid PNG of one colour (8-bit RGB, no filter). */
export function png(width: number, height: number, [r, g, b]: [number, number, number]): Buffer {
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set([r, g, b], 1 + x * 3);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(Array.from({ length: height }, () => row)))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'ascii');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

const CRC_TABLE = Uint32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
