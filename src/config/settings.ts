import { availableParallelism, totalmem } from 'node:os';
import * as z from 'zod';

/**
 * Every setting is declared once here: its config-file key, environment variable,
 * flag (none for secrets, which must not land in shell history) and schema. The
 * loader, the CLI's options, `fanlake help settings` and the settings table of
 * docs/interface.md are all derived from this list.
 */
export interface SettingSpec {
  /** Dotted config-file key, e.g. `ticketing.url`. */
  readonly key: string;
  readonly env: string;
  /** CLI flag without dashes; absent for secrets. */
  readonly flag?: string;
  readonly secret?: boolean;
  readonly description: string;
  /** Parses a raw value (string from env/flags, JSON value from the file). */
  readonly schema: z.ZodType;
  readonly default?: unknown;
  /** The default in words, where it is not a value: what happens without the setting. */
  readonly defaultText?: string;
}

/** Paths that name changed profiles by default (`listen.profileIdPaths`): the simulator's shape first, then common ones. */
export const DEFAULT_PROFILE_ID_PATHS = ['customerProfiles[].id', 'customerProfileIds[]', 'customerProfileId', 'customerProfile.id'] as const;

/** The change journal's defaults (`listen.journalSegmentBytes`, `listen.journalMaxBytes`): 4 MiB segments, 64 MiB in all. */
export const JOURNAL_DEFAULTS = { segmentBytes: 4 * 2 ** 20, maxBytes: 64 * 2 ** 20 } as const;

/** Which linked persons get an identities request (`engagement.identities`). */
export const IDENTITY_SELECTIONS = ['apiApp', 'all', 'off'] as const;
export type IdentitySelection = (typeof IDENTITY_SELECTIONS)[number];

/**
 * The reports' locale and time zone unless set. Known to Intl (test/config/load-config.test.ts
 * says so), so a default is not asked about: the first question loads ICU's data for the
 * locale or zone, which every command would then pay at its start, reports or not.
 */
export const DEFAULT_REPORT_LOCALE = 'nb-NO';
export const DEFAULT_REPORT_TIME_ZONE = 'Europe/Oslo';

/** Whether `locale` is a BCP 47 tag `Intl` knows. */
export function isKnownLocale(locale: string): boolean {
  if (locale === DEFAULT_REPORT_LOCALE) return true;
  try {
    return Intl.NumberFormat.supportedLocalesOf([locale]).length > 0;
  } catch {
    return false;
  }
}

/** Whether `timeZone` is an IANA zone `Intl` knows. */
export function isKnownTimeZone(timeZone: string): boolean {
  if (timeZone === DEFAULT_REPORT_TIME_ZONE) return true;
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return true;
  } catch {
    return false;
  }
}

const url = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

/** Whether `host` (a URL's hostname) is this machine's loopback: 127.0.0.0/8, localhost or ::1. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** A URL that may carry a secret: https, or plain http only to loopback (tests, the simulator). */
export function isHttpsOrLoopback(value: string): boolean {
  const parsed = URL.parse(value);
  return parsed !== null && (parsed.protocol === 'https:' || isLoopbackHost(parsed.hostname));
}
const positiveInt = z.coerce.number().int('must be a whole number').positive('must be positive');
/** A comma-separated list (environment, flag) or a JSON array (config file). */
const idList = z
  .union([z.string(), z.array(z.union([z.string(), z.number()]))])
  .transform((value) => (Array.isArray(value) ? value.map(String) : value.split(',')).map((v) => v.trim()).filter(Boolean));
const flag = z.union([z.boolean(), z.enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'must be true or false' })]).transform((v) => v === true || v === 'true' || v === '1' || v === 'yes');
/** `engagement.identities`; true and false stand for the default and off. */
const identitySelection = z.preprocess(
  (v) => (v === true ? 'true' : v === false ? 'false' : v),
  z.enum([...IDENTITY_SELECTIONS, 'true', 'false'], { error: `must be ${IDENTITY_SELECTIONS.join(', ')}` })
    .transform((v): IdentitySelection => (v === 'true' ? 'apiApp' : v === 'false' ? 'off' : v)),
);
/** A DuckDB size: a number and a unit (`4GB`, `512MB`, `3GiB`; GB is 1000³ bytes, GiB 1024³). */
const memorySize = z.string().trim().regex(/^\d+(\.\d+)?\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i, 'must be a size such as 4GB, 512MB or 3GiB');

/**
 * The default DuckDB budget of a warehouse stage: 40 % of the memory of the machine, or of its
 * container when that is smaller. Not DuckDB's own 80 %: the cap covers DuckDB's buffer
 * manager only, and the same machine holds fanlake's Node heap, the browser that renders
 * charts, the page cache the Parquet reads go through, and other work on a shared host. Not
 * half: DuckDB fills what it may (a build at scale 10 peaked at 2.2 GB under a 12 GiB cap, at 1.2 GB
 * capped at 1 GB, in no more CPU), and the process holds more than the cap, so a cap of half
 * would put the peak of a large club's stage above half the machine. The heaviest stage
 * (identity's pairwise comparison) still runs in a small budget by spilling to disk, which a
 * larger machine then spares it (docs/decisions.md "How much memory DuckDB may take").
 */
export function defaultMemoryLimit(machineBytes = machineMemory()): string {
  return `${Math.max(256, Math.floor((machineBytes * MEMORY_SHARE) / 2 ** 20))}MiB`;
}

/** DuckDB's share of the machine by default; the rest of half is the process's own. */
const MEMORY_SHARE = 0.4;

function machineMemory(): number {
  // 0 or a value beyond the machine's when no container limit is set
  const constrained = process.constrainedMemory?.() ?? 0;
  return constrained > 0 ? Math.min(constrained, totalmem()) : totalmem();
}

/** The shape of a cron expression (5 fields, or 6 with seconds); croner, loaded only by what reads it, checks the rest. */
function isCron(value: string): boolean {
  const fields = value.trim().split(/\s+/).length;
  return fields === 5 || fields === 6;
}
const isoDate = z.string().refine((value) => !Number.isNaN(Date.parse(value)), 'must be an ISO date');

export const SETTINGS = [
  { key: 'ticketing.url', env: 'FANLAKE_TICKETING_URL', flag: 'ticketing-url', schema: url.optional(), defaultText: 'none: the source is skipped',
    description: 'Base URL of the ticketing data-export API (paths /api/... are appended)' },
  { key: 'ticketing.token', env: 'FANLAKE_TICKETING_TOKEN', secret: true, schema: z.string().min(1).optional(),
    description: 'ACCESS_TOKEN sent as Authorization: Basic <token>' },
  { key: 'ticketing.membersPageBase', env: 'FANLAKE_TICKETING_MEMBERS_PAGE_BASE', flag: 'members-page-base',
    schema: z.enum(['auto', '0', '1'], { error: 'must be auto, 0 or 1' }), default: 'auto',
    description: 'Page base of /api/members: auto detects it at run time' },
  { key: 'ticketing.startDate', env: 'FANLAKE_TICKETING_START_DATE', flag: 'start-date', schema: isoDate,
    default: '2000-01-01T00:00:00Z', description: 'Where a first (or full-refresh) ticketing run starts' },
  { key: 'ticketing.lookbackMinutes', env: 'FANLAKE_TICKETING_LOOKBACK_MINUTES', flag: 'lookback-minutes',
    schema: z.coerce.number().int().min(0, 'must be 0 or more'), default: 60,
    description: 'Incremental runs start this far before the stored high-water mark' },
  { key: 'ticketing.maxWindowDays', env: 'FANLAKE_TICKETING_MAX_WINDOW_DAYS', flag: 'max-window-days',
    schema: positiveInt.max(1095, 'must stay under the API cap of 3 years (1095 days)'), default: 1088,
    description: 'Longest date window per request; the API caps it at 3 years, so keep a margin' },
  { key: 'engagement.url', env: 'FANLAKE_ENGAGEMENT_URL', flag: 'engagement-url', schema: url.optional(), defaultText: 'none: the source is skipped',
    description: 'Base URL of the engagement API (paths /v2/{orgId}/... are appended)' },
  { key: 'engagement.apiKey', env: 'FANLAKE_ENGAGEMENT_API_KEY', secret: true, schema: z.string().min(1).optional(),
    description: 'API_KEY sent as Authorization: Basic <key>' },
  { key: 'engagement.orgId', env: 'FANLAKE_ENGAGEMENT_ORG_ID', flag: 'org-id',
    schema: z.string().regex(/^\d+$/, 'must be a numeric organization id').optional(),
    description: 'Numeric organization id' },
  { key: 'engagement.pageSize', env: 'FANLAKE_ENGAGEMENT_PAGE_SIZE', flag: 'engagement-page-size',
    schema: positiveInt, default: 50, description: 'pageSize of engagement list requests (the maximum is not documented)' },
  { key: 'engagement.contextRoots', env: 'FANLAKE_ENGAGEMENT_CONTEXT_ROOTS', flag: 'context-roots', schema: idList, default: '',
    description: 'Context node ids whose trees are extracted (comma-separated; the API cannot list them)' },
  { key: 'engagement.demographicValues', env: 'FANLAKE_ENGAGEMENT_DEMOGRAPHIC_VALUES', flag: 'demographic-values', schema: idList,
    default: '', description: 'Demographic values whose leaderboards are extracted (comma-separated; the API cannot list them)' },
  { key: 'engagement.loyalty', env: 'FANLAKE_ENGAGEMENT_LOYALTY', flag: 'loyalty', schema: flag, default: false,
    description: 'Also fetch each customer profile\'s loyalty summary (one request per profile)' },
  { key: 'engagement.identities', env: 'FANLAKE_ENGAGEMENT_IDENTITIES', flag: 'identities', default: 'apiApp',
    schema: identitySelection,
    description: 'Which linked persons get an identities request: apiApp (those whose network is apiApp), all (every person; a 404 means not an identity) or off' },
  { key: 'engagement.snapshotCron', env: 'FANLAKE_ENGAGEMENT_SNAPSHOT_CRON', flag: 'snapshot-cron', default: '0 2 * * *',
    schema: z.string().refine(isCron, 'must be a cron expression of 5 fields (or 6 with seconds first), read in UTC'),
    description: 'With a push subscription (fanlake listen): when a full snapshot of the engagement resources is due, a cron read in UTC; between them a run re-reads only the changed profiles' },
  { key: 'engagement.readEveryRun', env: 'FANLAKE_ENGAGEMENT_READ_EVERY_RUN', flag: 'read-every-run', schema: idList, default: 'subscriptions',
    description: 'With a push subscription: engagement resources without a change signal read in full on every run instead of on the snapshot schedule (comma-separated, e.g. participants,top_positions)' },
  { key: 'listen.host', env: 'FANLAKE_LISTEN_HOST', flag: 'listen-host', schema: z.string().min(1), default: '127.0.0.1',
    description: 'Address fanlake listen binds to (keep it on loopback behind a TLS reverse proxy)' },
  { key: 'listen.port', env: 'FANLAKE_LISTEN_PORT', flag: 'listen-port', schema: z.coerce.number().int().min(0).max(65535, 'must be a port number'), default: 8788,
    description: 'Port fanlake listen binds to (listen --port N also sets it; 0 takes any free one)' },
  { key: 'listen.publicUrl', env: 'FANLAKE_LISTEN_PUBLIC_URL', flag: 'public-url',
    schema: url.refine(isHttpsOrLoopback, 'must be an https URL (plain http only on loopback: 127.0.0.1, localhost, ::1), since the URL carries the secret').optional(),
    description: 'The https URL the platform calls, where the TLS reverse proxy forwards to the receiver (default: http://HOST:PORT it listens on, allowed only on loopback); the subscription\'s callback is <public URL>/push/<FANLAKE_LISTEN_SECRET>' },
  { key: 'listen.secret', env: 'FANLAKE_LISTEN_SECRET', secret: true,
    schema: z.string().regex(/^[A-Za-z0-9_-]{32,}$/, 'must be at least 32 letters, digits, - or _ (e.g. openssl rand -hex 32)').optional(),
    description: 'The unguessable last path segment of the callback URL; deliveries to any other path are refused' },
  { key: 'listen.maxBodyBytes', env: 'FANLAKE_LISTEN_MAX_BODY_BYTES', flag: 'max-body-bytes', schema: positiveInt, default: 1_048_576,
    description: 'Largest delivery body the receiver reads; a larger one is refused with 413' },
  { key: 'listen.maxRequestsPerSecond', env: 'FANLAKE_LISTEN_MAX_REQUESTS_PER_SECOND', flag: 'max-requests-per-second', schema: positiveInt, default: 50,
    description: 'Deliveries per second the receiver takes from the platform, those sent to the secret path (a burst of as many); more are refused with 429' },
  { key: 'listen.maxUnauthenticatedPerSecond', env: 'FANLAKE_LISTEN_MAX_UNAUTHENTICATED_PER_SECOND', flag: 'max-unauthenticated-per-second', schema: positiveInt, default: 10,
    description: 'Requests to any other path the receiver answers per second (404, a burst of as many); more have their connection closed unanswered. Never taken from the deliveries\' allowance' },
  { key: 'listen.settleSeconds', env: 'FANLAKE_LISTEN_SETTLE_SECONDS', flag: 'settle-seconds', schema: z.coerce.number().min(0, 'must be 0 or more'), default: 30,
    description: 'A recorded change is read by a run that starts at least this long after it arrived (the platform may push before it serves the new record); younger ones are left for the next run' },
  { key: 'listen.journalSegmentBytes', env: 'FANLAKE_LISTEN_JOURNAL_SEGMENT_BYTES', flag: 'journal-segment-bytes', schema: positiveInt.min(4096, 'must be at least 4096'), default: JOURNAL_DEFAULTS.segmentBytes,
    description: 'The receiver starts a new journal segment once the one it appends to holds this many bytes' },
  { key: 'listen.journalMaxBytes', env: 'FANLAKE_LISTEN_JOURNAL_MAX_BYTES', flag: 'journal-max-bytes', schema: positiveInt.min(8192, 'must be at least 8192'), default: JOURNAL_DEFAULTS.maxBytes,
    description: 'Most bytes the change journal keeps when no run consumes it; beyond, its oldest segments are dropped and the next run takes a full snapshot, saying why' },
  { key: 'listen.profileIdPaths', env: 'FANLAKE_LISTEN_PROFILE_ID_PATHS', flag: 'profile-id-paths', schema: idList, default: DEFAULT_PROFILE_ID_PATHS.join(','),
    description: 'Where a delivery names the changed profiles: dotted paths, [] for each element of a list (comma-separated)' },
  { key: 'listen.restartSeconds', env: 'FANLAKE_LISTEN_RESTART_SECONDS', flag: 'listen-restart-seconds', schema: z.coerce.number().min(0, 'must be 0 or more'), default: 5,
    description: 'Under fanlake schedule: wait before restarting a receiver that failed or died; doubles with each further failure, up to 5 minutes' },
  { key: 'dataDir', env: 'FANLAKE_DATA_DIR', flag: 'data-dir', schema: z.string().min(1), default: './data',
    description: 'Root of everything fanlake writes' },
  { key: 'concurrency', env: 'FANLAKE_CONCURRENCY', flag: 'concurrency', schema: positiveInt.max(64), default: 8,
    description: 'Requests in flight per source' },
  { key: 'extract.conversionMemory', env: 'FANLAKE_CONVERSION_MEMORY', flag: 'conversion-memory', schema: z.enum(['keep', 'release']), default: 'keep',
    description: 'The DuckDB that writes raw Parquet: keep (one per run, parts of 28 MiB of JSON: the faster) or release (one per part of 25,000 rows, its memory given back after each: a lower peak, slower; docs/benchmarks.md)' },
  { key: 'lock.waitSeconds', env: 'FANLAKE_LOCK_WAIT', flag: 'wait', schema: z.coerce.number().min(0, 'must be 0 or more'), default: 0,
    description: 'How long a writing command waits for another writer of the data directory before it gives up (0: at once)' },
  { key: 'lock.staleSeconds', env: 'FANLAKE_LOCK_STALE_SECONDS', flag: 'lock-stale-seconds', schema: positiveInt, default: 600,
    description: 'A lock held from another host is taken over only after this long without its heartbeat' },
  { key: 'schedule.lockWaitSeconds', env: 'FANLAKE_SCHEDULE_LOCK_WAIT', flag: 'schedule-lock-wait', schema: z.coerce.number().min(0, 'must be 0 or more'),
    default: 300, description: 'How long a scheduled job waits for another writer before its slot counts as missed (it then runs once when the writer is done)' },
  { key: 'raw.retentionDays', env: 'FANLAKE_RAW_RETENTION_DAYS', flag: 'raw-retention-days', schema: z.coerce.number().min(0, 'must be 0 or more'), default: 30,
    description: 'After each scheduled job and each `fanlake run`, loaded raw runs older than this many days are removed, never the newest snapshot of a resource (0 keeps everything)' },
  { key: 'privacy.vanishedDays', env: 'FANLAKE_PRIVACY_VANISHED_DAYS', flag: 'vanished-days', schema: z.coerce.number().min(1, 'must be at least 1'), default: 30,
    description: 'A record the source no longer lists has its personal columns cleared in the warehouse and its rows removed from raw runs once it has been vanished this many days (each load does it)' },
  { key: 'schedule.logRetentionDays', env: 'FANLAKE_SCHEDULE_LOG_RETENTION_DAYS', flag: 'schedule-log-retention-days', schema: z.coerce.number().min(0, 'must be 0 or more'), default: 90,
    description: 'The schedule log rotates weekly; a rotated file goes once its newest entry is older than this many days (0 keeps everything)' },
  { key: 'check.retentionDays', env: 'FANLAKE_CHECK_RETENTION_DAYS', flag: 'check-retention-days', schema: z.coerce.number().min(0, 'must be 0 or more'), default: 90,
    description: 'Each check removes rows of meta.check_results older than this many days, never those of the newest check (0 keeps everything)' },
  { key: 'smtp.host', env: 'FANLAKE_SMTP_HOST', flag: 'smtp-host', schema: z.string().min(1).optional(),
    description: 'SMTP server that schedules deliver e-mail through' },
  { key: 'smtp.port', env: 'FANLAKE_SMTP_PORT', flag: 'smtp-port', schema: positiveInt.max(65535), default: 587,
    description: 'SMTP port (465 speaks TLS from the start, others upgrade with STARTTLS when offered)' },
  { key: 'smtp.user', env: 'FANLAKE_SMTP_USER', flag: 'smtp-user', schema: z.string().min(1).optional(),
    description: 'SMTP user name; none sends without logging in' },
  { key: 'smtp.password', env: 'FANLAKE_SMTP_PASSWORD', secret: true, schema: z.string().min(1).optional(),
    description: 'SMTP password' },
  { key: 'smtp.from', env: 'FANLAKE_SMTP_FROM', flag: 'smtp-from', schema: z.string().min(1).optional(),
    description: 'Sender address of delivered reports and alerts' },
  { key: 'smtp.to', env: 'FANLAKE_SMTP_TO', flag: 'smtp-to', schema: idList, default: '',
    description: 'Recipients of delivered reports and alerts (comma-separated; a schedule may name its own)' },
  { key: 'webhook.url', env: 'FANLAKE_WEBHOOK_URL', secret: true, schema: url.optional(),
    description: 'Chat webhook (Slack-compatible JSON) that schedules post digests and alerts to; it carries a token' },
  { key: 'delivery.maxAttempts', env: 'FANLAKE_DELIVERY_MAX_ATTEMPTS', flag: 'delivery-max-attempts', schema: positiveInt.max(20), default: 5,
    description: 'Attempts per e-mail or webhook post before the delivery is recorded as failed' },
  { key: 'delivery.retrySeconds', env: 'FANLAKE_DELIVERY_RETRY_SECONDS', flag: 'delivery-retry-seconds', schema: z.coerce.number().min(0, 'must be 0 or more'), default: 10,
    description: 'Wait before the first retry of a delivery; doubles with each further attempt' },
  { key: 'warehouse.memoryLimit', env: 'FANLAKE_MEMORY_LIMIT', flag: 'memory-limit', schema: memorySize, default: defaultMemoryLimit(),
    defaultText: '40 % of the memory of the machine (or of its container)',
    description: 'Memory DuckDB may use in load, build, check and reads of the warehouse (sql, shell, reports), such as 4GB; beyond it the heaviest steps spill to disk beside the warehouse file, which is slower' },
  { key: 'warehouse.threads', env: 'FANLAKE_THREADS', flag: 'threads', schema: positiveInt.max(1024), default: availableParallelism(),
    defaultText: 'the cores this process may run on (os.availableParallelism)',
    description: 'Threads DuckDB may use in load, build, check and reads of the warehouse (sql, shell, reports); fewer leave cores to other work on a shared machine, or to fanlake commands running side by side' },
  { key: 'models.buildConcurrency', env: 'FANLAKE_BUILD_CONCURRENCY', flag: 'build-concurrency', schema: positiveInt.max(16), default: 2,
    description: 'Models build builds at once, each on a connection of its own, as soon as the models it reads are built; they share warehouse.threads and warehouse.memoryLimit. 1 builds one model at a time, which can spill less when a large build is held at the memory limit; build --full-refresh and a first build always build one at a time' },
  { key: 'warehouse.busyTimeoutSeconds', env: 'FANLAKE_BUSY_TIMEOUT_SECONDS', flag: 'busy-timeout', schema: z.coerce.number().min(0, 'must be 0 or more'),
    default: 60, description: 'How long a command waits for the warehouse file while another process has it open' },
  { key: 'models.phoneDefaultCountryCode', env: 'FANLAKE_PHONE_DEFAULT_COUNTRY_CODE', flag: 'phone-country-code', default: '+47',
    schema: z.coerce.string().trim().regex(/^\+?[1-9][0-9]{0,2}$/, 'must be a country calling code such as +47')
      .transform((code) => (code.startsWith('+') ? code : `+${code}`)),
    description: 'Country calling code build gives a phone number written without one (macros.phone_default_country_code)' },
  { key: 'club.dir', env: 'FANLAKE_CLUB_DIR', flag: 'club-dir', schema: z.string().min(1).optional(),
    defaultText: 'club/ beside the config file',
    description: 'Folder of what the club decides (what its consents mean, order status and type groups, sales channel names), versioned by the club; a file there replaces the default of the same name (default: club/ beside the config file, or in the working directory without one)' },
  { key: 'models.identityOverrides', env: 'FANLAKE_IDENTITY_OVERRIDES', flag: 'identity-overrides', schema: z.string().min(1).optional(),
    defaultText: 'identity_overrides.csv in the club folder, if it exists',
    description: 'CSV of record pairs analysts settled as the same fan or not (record_a,record_b,decision[,note]), applied by build; a path set here must exist' },
  { key: 'models.identityLinkThreshold', env: 'FANLAKE_IDENTITY_LINK_THRESHOLD', flag: 'identity-link-threshold', default: 0.95,
    schema: z.coerce.number().gt(0, 'must be a probability above 0').lt(1, 'must be a probability below 1'),
    description: 'Match probability at or above which the identity model makes two records one fan (macros.identity_link_threshold)' },
  { key: 'models.identityReviewThreshold', env: 'FANLAKE_IDENTITY_REVIEW_THRESHOLD', flag: 'identity-review-threshold', default: 0.5,
    schema: z.coerce.number().gt(0, 'must be a probability above 0').lt(1, 'must be a probability below 1'),
    description: 'Match probability from which a pair under the link threshold is listed for review in marts.fan_identity_review (macros.identity_review_threshold)' },
  { key: 'models.identityAutoRetrain', env: 'FANLAKE_IDENTITY_AUTO_RETRAIN', flag: 'identity-auto-retrain', schema: flag, default: false,
    description: 'Whether build trains a new identity model and puts it in force on its own when a retrain is due (records grown by retrain_growth, or a changed sql/identity/); off, build keeps the model in force and reports the retrain as due, and fanlake identity train --apply puts one in force' },
  { key: 'models.identityChurnWarnShare', env: 'FANLAKE_IDENTITY_CHURN_WARN_SHARE', flag: 'identity-churn-warn-share', default: 0.05,
    schema: z.coerce.number().gt(0, 'must be a share above 0').max(1, 'must be a share of at most 1'),
    description: 'Share of the records whose fan_id one build may move before the data test identity_fan_churn warns (meta.identity_fan_churn)' },
  { key: 'http.timeoutMs', env: 'FANLAKE_HTTP_TIMEOUT_MS', flag: 'timeout-ms', schema: positiveInt, default: 30_000,
    description: 'How long one request may take before it is retried' },
  { key: 'http.maxAttempts', env: 'FANLAKE_HTTP_MAX_ATTEMPTS', flag: 'max-attempts', schema: positiveInt.max(20),
    default: 6, description: 'Attempts per request before a retryable failure is final' },
  { key: 'report.locale', env: 'FANLAKE_REPORT_LOCALE', flag: 'locale', default: DEFAULT_REPORT_LOCALE,
    schema: z.string().refine(isKnownLocale, 'must be a BCP 47 locale such as nb-NO or en-GB'),
    description: 'Locale of numbers and dates in reports' },
  { key: 'report.currency', env: 'FANLAKE_REPORT_CURRENCY', flag: 'currency', default: 'NOK',
    schema: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as NOK'),
    description: 'Currency of amounts in reports' },
  { key: 'report.timeZone', env: 'FANLAKE_REPORT_TIME_ZONE', flag: 'time-zone', default: DEFAULT_REPORT_TIME_ZONE,
    schema: z.string().refine(isKnownTimeZone, 'must be an IANA time zone such as Europe/Oslo'),
    description: 'Time zone of times shown in reports' },
  { key: 'report.keep', env: 'FANLAKE_REPORT_KEEP', flag: 'keep', schema: positiveInt, default: 30,
    description: 'Renderings kept per report; older ones are removed' },
  { key: 'report.definitions', env: 'FANLAKE_REPORT_DEFINITIONS', flag: 'definitions', schema: z.string().min(1).optional(),
    defaultText: 'reports/ of the checkout', description: 'Folder of report files' },
] as const satisfies readonly SettingSpec[];

export type SettingKey = (typeof SETTINGS)[number]['key'];
