import type { ValueFormat } from './report-definition.js';

/** The club's conventions for showing values: settings `report.locale`, `report.currency`, `report.timeZone`. */
export interface LocaleOptions {
  locale: string;
  currency: string;
  timeZone: string;
}

/** A result value as the page needs it: numbers as numbers, instants and dates as ISO text. */
export type CellValue = string | number | boolean | null;

/** The format a column gets when the report does not name one, from its DuckDB type. */
export function defaultFormat(duckdbType: string): ValueFormat {
  const type = duckdbType.toUpperCase();
  if (/^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT)$/.test(type)) return 'integer';
  if (/^(DECIMAL|NUMERIC|DOUBLE|FLOAT|REAL)/.test(type)) return 'number';
  if (type.startsWith('TIMESTAMP')) return 'datetime';
  if (type === 'DATE') return 'date';
  return 'text';
}

/** Formats values for one locale, currency and time zone; formatters are built once. */
export class ValueFormatter {
  readonly #integer: Intl.NumberFormat;
  readonly #number: Intl.NumberFormat;
  readonly #percent: Intl.NumberFormat;
  readonly #currency: Intl.NumberFormat;
  readonly #date: Intl.DateTimeFormat;
  readonly #datetime: Intl.DateTimeFormat;

  constructor(readonly options: LocaleOptions) {
    const { locale, currency, timeZone } = options;
    this.#integer = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 });
    this.#number = new Intl.NumberFormat(locale, { maximumFractionDigits: 2 });
    this.#percent = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 });
    this.#currency = new Intl.NumberFormat(locale, { style: 'currency', currency });
    // A DATE is a calendar day, not an instant: shown as it is, never shifted by a zone.
    this.#date = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' });
    this.#datetime = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone });
  }

  format(value: CellValue | undefined, format: ValueFormat): string {
    if (value === null || value === undefined) return '';
    if (typeof value === 'boolean') return String(value);
    switch (format) {
      case 'integer':
        return typeof value === 'number' ? this.#integer.format(value) : String(value);
      case 'number':
        return typeof value === 'number' ? this.#number.format(value) : String(value);
      case 'percent':
        return typeof value === 'number' ? this.#percent.format(value) : String(value);
      case 'currency':
        return typeof value === 'number' ? this.#currency.format(value) : String(value);
      case 'date':
        return this.#dateLike(value, this.#date);
      case 'datetime':
        return this.#dateLike(value, this.#datetime);
      default:
        return String(value);
    }
  }

  /** An instant in the club's zone and locale, with the zone named: the render time in footers. */
  instant(at: Date): string {
    return `${this.#datetime.format(at)} (${this.options.timeZone})`;
  }

  #dateLike(value: string | number, formatter: Intl.DateTimeFormat): string {
    const at = new Date(value);
    return Number.isNaN(at.getTime()) ? String(value) : formatter.format(at);
  }
}

/** The d3-format locale Vega needs for axis labels, taken from `Intl` so charts and tables agree. */
export function vegaNumberLocale(locale: string, currency: string): { decimal: string; thousands: string; grouping: number[]; currency: [string, string] } {
  const parts = new Intl.NumberFormat(locale, { style: 'currency', currency }).formatToParts(12345.6);
  const part = (type: string) => parts.find((p) => p.type === type)?.value;
  const symbolAt = parts.findIndex((p) => p.type === 'currency');
  const firstNumber = parts.findIndex((p) => p.type === 'integer');
  const symbol = part('currency') ?? currency;
  const spaced = parts.some((p) => p.type === 'literal');
  return {
    decimal: part('decimal') ?? '.',
    thousands: part('group') ?? ',',
    grouping: [3],
    currency: symbolAt < firstNumber ? [`${symbol}${spaced ? '\u00a0' : ''}`, ''] : ['', `${spaced ? '\u00a0' : ''}${symbol}`],
  };
}
