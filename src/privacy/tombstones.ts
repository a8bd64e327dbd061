import { createHmac, randomBytes } from 'node:crypto';
import { appendFile, chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { writeFileAtomic } from '../core/atomic-file.js';
import { CODE } from '../core/error-codes.js';
import { readJsonFile } from '../raw-contract/json-file.js';
import type { PersonSelection } from './person-records.js';

/** `$DATA/privacy`: what erasure keeps (tombstones, their hash key, the audit log), owner-only. */
export const PRIVACY_DIR = 'privacy';
const TOMBSTONES_FILE = 'tombstones.json';
const KEY_FILE = 'hash-key';
const AUDIT_FILE = 'erasures.log';
const OWNER_ONLY = 0o600;

const tombstonesSchema = z.object({
  version: z.literal(1),
  /** Record keys (`ticketing_user:10001`) of forgotten records: their rows never load again. */
  records: z.array(z.string().min(1)),
  /** HMAC-SHA256 (key in `hash-key`) of forgotten e-mail addresses, trimmed and lowercased. */
  emailHashes: z.array(z.string().regex(/^[0-9a-f]{64}$/)),
  /** HMAC-SHA256 of forgotten phone numbers in E.164. */
  phoneHashes: z.array(z.string().regex(/^[0-9a-f]{64}$/)),
});

/** What `fanlake forget` leaves behind so a source that still holds a person cannot bring them back. */
export type Tombstones = z.infer<typeof tombstonesSchema>;

const EMPTY: Tombstones = { version: 1, records: [], emailHashes: [], phoneHashes: [] };

export function privacyDir(dataDir: string): string {
  return join(dataDir, PRIVACY_DIR);
}

/** The tombstones of the data dir; none when nothing was ever forgotten. */
export async function readTombstones(dataDir: string): Promise<Tombstones> {
  try {
    return await readJsonFile(join(privacyDir(dataDir), TOMBSTONES_FILE), tombstonesSchema, CODE.E_PRIVACY_TOMBSTONES, 'tombstones');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return EMPTY;
    throw error;
  }
}

export function hasTombstones(tombstones: Tombstones): boolean {
  return tombstones.records.length + tombstones.emailHashes.length > 0;
}

/** Adds record keys and the keyed hashes of e-mail addresses and phone numbers (never the values) to the tombstones. */
export async function addTombstones(dataDir: string, add: { records: readonly string[]; emails: readonly string[]; phones: readonly string[] }): Promise<Tombstones> {
  const hash = await keyedHasher(dataDir);
  const current = await readTombstones(dataDir);
  const union = (old: readonly string[], added: readonly string[]) => [...new Set([...old, ...added])].sort();
  const next: Tombstones = {
    version: 1,
    records: union(current.records, add.records),
    emailHashes: union(current.emailHashes, add.emails.map((email) => hash(normalizeEmail(email)))),
    phoneHashes: union(current.phoneHashes, add.phones.map(hash)),
  };
  const path = join(privacyDir(dataDir), TOMBSTONES_FILE);
  await writeFileAtomic(path, `${JSON.stringify(next, null, 2)}\n`);
  await chmod(path, OWNER_ONLY);
  return next;
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * HMAC-SHA256 under the data dir's own key, made once (32 random bytes, owner-only): the
 * tombstones can then be compared with what a source sends, yet say nothing to whoever reads
 * them without the key (a plain hash of an address is guessed from a list of addresses).
 */
export async function keyedHasher(dataDir: string): Promise<(value: string) => string> {
  const path = join(privacyDir(dataDir), KEY_FILE);
  let key: string;
  try {
    key = (await readFile(path, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await mkdir(privacyDir(dataDir), { recursive: true, mode: 0o700 });
    key = randomBytes(32).toString('hex');
    // `wx`: two writers cannot both make a key; the second reads the first's.
    await writeFile(path, `${key}\n`, { mode: OWNER_ONLY, flag: 'wx' }).catch(async (cause: NodeJS.ErrnoException) => {
      if (cause.code !== 'EEXIST') throw cause;
      key = (await readFile(path, 'utf8')).trim();
    });
  }
  return (value: string) => createHmac('sha256', key).update(value).digest('hex');
}

/**
 * The selection of rows tombstones forbid, among rows whose e-mail person keys hold
 * `candidateEmails`: every tombstoned record id, and those candidates whose keyed hash is a
 * tombstone's.
 */
export function tombstonedSelection(tombstones: Tombstones, hash: (value: string) => string, candidateEmails: readonly string[]): PersonSelection {
  const idsBySystem = new Map<string, Set<string>>();
  for (const key of tombstones.records) {
    const at = key.indexOf(':');
    const system = key.slice(0, at);
    idsBySystem.set(system, (idsBySystem.get(system) ?? new Set()).add(key.slice(at + 1)));
  }
  const hashes = new Set(tombstones.emailHashes);
  return { idsBySystem, emails: new Set(candidateEmails.map(normalizeEmail).filter((email) => hashes.has(hash(email)))) };
}

/** One line of the erasure audit log: when, how the person was named, how many records went. Never the identifier. */
export interface ErasureAudit {
  readonly at: string;
  /** `forget --email`, `vanished` ... */
  readonly kind: string;
  readonly records: number;
  readonly detail?: Record<string, number>;
}

/** Appends one line to `$DATA/privacy/erasures.log` (JSON lines, owner-only). */
export async function appendErasureAudit(dataDir: string, line: ErasureAudit): Promise<void> {
  await mkdir(privacyDir(dataDir), { recursive: true, mode: 0o700 });
  const path = join(privacyDir(dataDir), AUDIT_FILE);
  await appendFile(path, `${JSON.stringify(line)}\n`, { mode: OWNER_ONLY });
}
