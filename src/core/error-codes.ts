/**
 * Every code a `FanlakeError` can carry, declared once: whether retrying later could help,
 * and what it means in one line. The type of a code, the `retryable` flag of an error and
 * the list in docs/errors.md all come from here (a test keeps the docs in step).
 */
export interface ErrorCodeSpec {
  /** The stage or part of fanlake that raises it. */
  readonly area: 'cli' | 'core' | 'http' | 'extract' | 'load' | 'models' | 'check' | 'reports' | 'listen' | 'privacy';
  /** True when the same run could succeed later without a change (a busy file, a flaky server). */
  readonly retryable: boolean;
  readonly meaning: string;
}

export const ERROR_CODES = {
  E_USAGE: { area: 'cli', retryable: false, meaning: 'Bad usage, configuration or definition; the CLI exits 2.' },
  E_UNEXPECTED: { area: 'core', retryable: false, meaning: 'A failure fanlake did not foresee (a bug or the environment); the message says what broke.' },
  E_DUCKDB_OPEN: { area: 'core', retryable: false, meaning: 'A DuckDB database file could not be opened.' },
  E_DUCKDB_BUSY: { area: 'core', retryable: true, meaning: 'Another process kept the database file open past the busy wait.' },
  E_SQL_NUL: { area: 'core', retryable: false, meaning: 'A SQL identifier or literal contains a NUL byte.' },
  E_SQL_QUERY: { area: 'core', retryable: false, meaning: 'DuckDB rejected a well-formed statement.' },
  E_LOCK_HELD: { area: 'core', retryable: true, meaning: 'Another live writer holds the data directory.' },
  E_WAREHOUSE_MISSING: { area: 'core', retryable: false, meaning: 'There is no warehouse yet: run extract and load first.' },

  E_HTTP_STATUS: { area: 'http', retryable: false, meaning: 'A status retrying cannot fix (400, 403, 404, other 4xx, 501, 3xx).' },
  E_HTTP_AUTH: { area: 'http', retryable: false, meaning: '401: the API credential is missing, wrong or expired.' },
  E_HTTP_GAVE_UP: { area: 'http', retryable: true, meaning: 'Every attempt of a request failed transiently; the context names the request.' },
  E_HTTP_REQUEST: { area: 'http', retryable: false, meaning: 'A request could not be sent at all (bad URL or header, client closed).' },
  E_HTTP_RETRYABLE_STATUS: { area: 'http', retryable: true, meaning: 'One attempt answered 429, 500, 502, 503 or 504.' },
  E_HTTP_TIMEOUT: { area: 'http', retryable: true, meaning: 'One attempt got no complete response within the timeout.' },
  E_HTTP_NETWORK: { area: 'http', retryable: true, meaning: 'One attempt\'s connection was refused, reset or broken before the headers.' },
  E_HTTP_TRUNCATED: { area: 'http', retryable: true, meaning: 'One attempt\'s body broke off, or was JSON that does not parse.' },

  E_BAD_ENVELOPE: { area: 'extract', retryable: false, meaning: 'A list answered without its documented envelope (count, page, items).' },
  E_PAGING_RUNAWAY: { area: 'extract', retryable: false, meaning: 'A list did not end within the page limit.' },
  E_PAGE_BASE: { area: 'extract', retryable: false, meaning: 'Two pages started with the same record: the page base is wrong for the endpoint.' },
  E_DECLARATION: { area: 'extract', retryable: false, meaning: 'An endpoint declaration is inconsistent (a bug in fanlake).' },
  E_STATE_INVALID: { area: 'extract', retryable: false, meaning: 'An extraction state file is damaged.' },
  E_MANIFEST_INVALID: { area: 'extract', retryable: false, meaning: 'A raw run\'s manifest is not JSON or not a valid manifest.' },
  E_RAW_PATH: { area: 'extract', retryable: false, meaning: 'A raw file path leaves the data directory.' },
  E_RAW_NAME: { area: 'extract', retryable: false, meaning: 'A source or resource name is not a valid raw name.' },
  E_RAW_RUN_ID: { area: 'extract', retryable: false, meaning: 'A run id does not have the run id form.' },
  E_SPOOL_OPTIONS: { area: 'extract', retryable: false, meaning: 'The Parquet spool was given invalid options.' },
  E_SPOOL_CLOSED: { area: 'extract', retryable: false, meaning: 'Records were written to a spool already committed or aborted.' },
  E_SPOOL_RECORD: { area: 'extract', retryable: false, meaning: 'A record to spool is not a JSON object.' },
  E_SPOOL_COLUMN_CONFLICT: { area: 'extract', retryable: false, meaning: 'Two records give one column types that cannot be reconciled.' },
  E_SPOOL_CONVERT: { area: 'extract', retryable: false, meaning: 'Spooled records could not be written as Parquet.' },

  E_RUN_SUMMARY_INVALID: { area: 'load', retryable: false, meaning: 'An extraction run summary under runs/ is not JSON or not a run summary.' },
  E_LOAD_FILE_MISSING: { area: 'load', retryable: false, meaning: 'A raw file named by a manifest is missing.' },
  E_LOAD_CHECKSUM: { area: 'load', retryable: false, meaning: 'A raw file does not match the size and sha256 of its manifest.' },
  E_LOAD_KEY: { area: 'load', retryable: false, meaning: 'A primary key column is missing from the files, or the key differs between runs.' },
  E_LOAD_PREPARE: { area: 'load', retryable: false, meaning: 'Reading a table\'s new raw files failed.' },
  E_LOAD_MERGE: { area: 'load', retryable: false, meaning: 'Merging a table\'s new rows into the warehouse failed.' },
  E_LOAD_ROLLED_BACK: { area: 'load', retryable: false, meaning: 'A table merged but was rolled back because another part of the load failed.' },
  E_LOAD_DIFFERENCE_BASE: { area: 'load', retryable: false, meaning: 'A warning, not a failure: a snapshot difference was taken against another warehouse state than the one it would be applied onto (a restored or rebuilt warehouse, a run loaded out of order); the load skipped it and the next extract writes the resource whole.' },
  E_LOAD_META: { area: 'load', retryable: false, meaning: 'Recording the run records in meta failed.' },

  E_MODEL_PROJECT: { area: 'models', retryable: false, meaning: 'The SQL project is broken (header, parse, missing reference, cycle): nothing was built.' },
  E_MODEL_FAILED: { area: 'models', retryable: false, meaning: 'A model\'s SQL failed in DuckDB; its descendants were skipped.' },
  E_MODEL_SOURCE_MISSING: { area: 'models', retryable: false, meaning: 'A model reads a raw table the warehouse does not have.' },
  E_MODEL_INCREMENTAL: { area: 'models', retryable: false, meaning: 'An incremental model\'s output no longer fits its table, or its keys are null or repeated.' },
  E_MODEL_MACRO: { area: 'models', retryable: false, meaning: 'The macros could not be created in the warehouse: nothing was built.' },
  E_SEED_FAILED: { area: 'models', retryable: false, meaning: 'A seed CSV could not be loaded.' },

  E_TEST_BROKEN: { area: 'check', retryable: false, meaning: 'A data test could not run at all (missing table or column, bad SQL).' },
  E_TEST_FAILED: { area: 'check', retryable: false, meaning: 'An error-level data test found failing rows or stale data.' },

  E_REPORT_QUERY: { area: 'reports', retryable: false, meaning: 'A report\'s query failed.' },
  E_REPORT_RENDER: { area: 'reports', retryable: false, meaning: 'A report could not be rendered.' },

  E_LISTEN_SUBSCRIPTION: { area: 'listen', retryable: true, meaning: 'Registering, updating or reading the push subscription through the API failed.' },
  E_LISTEN_VALIDATION: { area: 'listen', retryable: true, meaning: 'The validation token did not reach the receiver: the platform cannot reach its public URL.' },
  E_JOURNAL_INVALID: { area: 'listen', retryable: false, meaning: 'The change journal or its consumed mark under listen/ is damaged.' },

  E_PRIVACY_TOMBSTONES: { area: 'privacy', retryable: false, meaning: 'The tombstones of forgotten people ($FANLAKE_DATA_DIR/privacy/tombstones.json) are not valid; no load runs without them.' },
  E_PRIVACY_ERASE: { area: 'privacy', retryable: false, meaning: 'Erasing a person\'s records from raw files or the warehouse failed; run forget again, it takes up where it stopped.' },
  E_IDENTITY_NOT_BUILT: { area: 'privacy', retryable: false, meaning: 'Identity resolution\'s tables are not in the warehouse, so no person can be found: run build first.' },
} as const satisfies Record<`E_${string}`, ErrorCodeSpec>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Every code, in declaration order. */
export const ERROR_CODE_NAMES = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

/** Each code by name, so a throw site names a declared code instead of writing a string: `CODE.E_LOAD_KEY`. */
export const CODE = Object.freeze(Object.fromEntries(ERROR_CODE_NAMES.map((code) => [code, code]))) as { readonly [C in ErrorCode]: C };

/** The table of docs/errors.md, one row per code. */
export function errorCodesMarkdown(): string {
  const rows = ERROR_CODE_NAMES.map((code) => {
    const spec: ErrorCodeSpec = ERROR_CODES[code];
    return `| \`${code}\` | ${spec.area} | ${spec.retryable ? 'yes' : 'no'} | ${spec.meaning} |`;
  });
  return ['| code | raised by | retryable | meaning |', '|---|---|---|---|', ...rows].join('\n');
}
