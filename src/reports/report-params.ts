import { DuckDBDateValue } from '@duckdb/node-api';
import type { DuckDBValue } from '@duckdb/node-api';
import { UsageError } from '../core/errors.js';
import type { ParamDefinition } from './report-definition.js';

/** A parameter's value as the page shows it (text) and as DuckDB binds it (typed). */
export interface BoundParam {
  name: string;
  text: string | null;
  value: DuckDBValue;
}

/**
 * Refuses parameters that none of the selected reports declares (`--param sesaon=...` is a
 * typo, not something to ignore).
 */
export function checkParamNames(given: Record<string, string>, declared: readonly ParamDefinition[][], reportNames: readonly string[]): void {
  const known = new Set(declared.flat().map((param) => param.name));
  const unknown = Object.keys(given).filter((name) => !known.has(name));
  if (unknown.length > 0) {
    const list = [...known].join(', ') || 'none';
    throw new UsageError(`parameter ${unknown.join(', ')} is not declared by ${reportNames.join(', ')} (declared: ${list})`);
  }
}

/** Converts one parameter's text to the value DuckDB binds, by its declared type. */
export function bindParam(param: ParamDefinition, text: string | null, report: string): BoundParam {
  if (text === null) return { name: param.name, text: null, value: null };
  const bad = (what: string) => new UsageError(`${report}: parameter ${param.name} must be ${what}, not ${JSON.stringify(text)}`);
  switch (param.type) {
    case 'integer': {
      if (!/^-?\d+$/.test(text.trim())) throw bad('a whole number');
      return { name: param.name, text, value: BigInt(text.trim()) };
    }
    case 'number': {
      const value = Number(text);
      if (text.trim() === '' || !Number.isFinite(value)) throw bad('a number');
      return { name: param.name, text, value };
    }
    case 'boolean': {
      if (!/^(true|false)$/i.test(text.trim())) throw bad('true or false');
      return { name: param.name, text, value: text.trim().toLowerCase() === 'true' };
    }
    case 'date': {
      const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim());
      const valid = match && !Number.isNaN(Date.parse(`${text.trim()}T00:00:00Z`));
      if (!match || !valid) throw bad('a date YYYY-MM-DD');
      return { name: param.name, text, value: DuckDBDateValue.fromParts({ year: Number(match[1]), month: Number(match[2]), day: Number(match[3]) }) };
    }
    default:
      return { name: param.name, text, value: text };
  }
}

/** `k=v` pairs from the command line; the value may itself contain `=`. */
export function parseParamArgs(pairs: readonly string[]): Record<string, string> {
  const params: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`--param takes name=value, not ${JSON.stringify(pair)}`);
    params[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return params;
}
