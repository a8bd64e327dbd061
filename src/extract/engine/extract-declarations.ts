import { FanlakeError } from '../../core/errors.js';
import type { EndpointDeclaration } from '../../sources/endpoint-declaration.js';
import type { ResourceSpec } from '../../sources/resource-spec.js';
import { type DateWindowRun, extractDateWindowResource } from '../date-window-extractor.js';
import type { ResourceResult } from '../resource-result.js';
import { type SnapshotRun, extractSnapshot } from './snapshot-engine.js';
import { CODE } from '../../core/error-codes.js';

/** A declaration of either source: a date-windowed list (ticketing) or a snapshot endpoint (engagement). */
export type Declaration<S> = ResourceSpec | EndpointDeclaration<S>;

/** What date-windowed declarations need: the stored positions, the window rules, pinned page bases. */
export type WindowOptions = Pick<DateWindowRun, 'state' | 'pageSlots' | 'fullRefresh' | 'startDate' | 'lookbackMinutes' | 'maxWindowDays'> & {
  /** A page base the configuration fixes for an `auto` declaration, by resource name. */
  readonly pageBases?: Readonly<Record<string, 0 | 1>>;
};

/** What snapshot declarations need: the page size, the `Accept` header, and the settings their hooks read. */
export type SnapshotOptions<S> = Pick<SnapshotRun<S>, 'accept' | 'pageSize' | 'settings'>;

export interface DeclarationRun<S> extends Omit<SnapshotRun<S>, keyof SnapshotOptions<S>> {
  readonly windows?: WindowOptions;
  readonly snapshot?: SnapshotOptions<S>;
}

/**
 * The one engine of both sources: runs every declaration asked for, concurrently, by its
 * paging style. Date-windowed lists are read window by window from their stored position
 * (`extractDateWindowResource`); snapshot endpoints are read whole, linked members and
 * fan-outs included (`extractSnapshot`, whose page styles are small strategies).
 */
export async function extractDeclarations<S>(run: DeclarationRun<S>, declarations: readonly Declaration<S>[]): Promise<ResourceResult[]> {
  const windowed = declarations.filter(isDateWindowed).filter((spec) => !run.only || run.only.includes(spec.name));
  const endpoints = declarations.filter((declaration): declaration is EndpointDeclaration<S> => !isDateWindowed(declaration));
  const { windows, snapshot } = run;
  if (windowed.length > 0 && !windows) throw new FanlakeError(CODE.E_DECLARATION, 'date-windowed declarations need window options (state, start date, lookback)');
  if (endpoints.length > 0 && !snapshot) throw new FanlakeError(CODE.E_DECLARATION, 'snapshot declarations need snapshot options (page size, settings)');
  const [listed, snapshotted] = await Promise.all([
    Promise.all(windowed.map((spec) => extractDateWindowResource({ ...run, ...windows!, pageBaseOverride: windows!.pageBases?.[spec.name] }, spec))),
    endpoints.length > 0 ? extractSnapshot({ ...run, ...snapshot! }, endpoints) : [],
  ]);
  return [...listed, ...snapshotted];
}

function isDateWindowed<S>(declaration: Declaration<S>): declaration is ResourceSpec {
  return declaration.paging.style === 'date-window';
}
