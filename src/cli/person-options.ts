import type { Argv } from 'yargs';
import { UsageError } from '../core/errors.js';
import { PERSON_IDENTIFIERS, type PersonIdentifier, type PersonQuery } from '../privacy/find-person.js';

/** The options that name a person (export-person, forget). */
export interface PersonArgs {
  email?: string;
  phone?: string;
  record?: string;
  fanId?: string;
}

/** Adds --email, --phone, --record and --fan-id. */
export function withPersonOptions<T>(yargs: Argv<T>): Argv<T & PersonArgs> {
  return yargs
    .option('email', { type: 'string', describe: 'An e-mail address (compared trimmed and lowercased)' })
    .option('phone', { type: 'string', describe: 'A phone number (compared in E.164, as matching does)' })
    .option('record', { type: 'string', describe: 'A source record key, system:record_id (ticketing_user:10001)' })
    .option('fan-id', { type: 'string', describe: 'A fan_id of marts.dim_fan' }) as unknown as Argv<T & PersonArgs>;
}

/**
 * The one identifier given.
 *
 * @throws UsageError when none or several are given, or the one given is empty.
 */
export function personQueryFrom(args: PersonArgs): PersonQuery {
  const given = PERSON_IDENTIFIERS.filter((by) => valueOf(args, by) !== undefined);
  if (given.length !== 1) throw new UsageError(`name the person by exactly one of ${PERSON_IDENTIFIERS.map((by) => `--${by}`).join(', ')}${given.length > 1 ? `, not ${given.length}` : ''}`);
  const by = given[0]!;
  const value = valueOf(args, by)!;
  if (value.trim() === '') throw new UsageError(`--${by} is empty`);
  return { by, value };
}

function valueOf(args: PersonArgs, by: PersonIdentifier): string | undefined {
  return by === 'fan-id' ? args.fanId : args[by];
}
