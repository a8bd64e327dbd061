/** The HTTP layer both extractors share: one client, one retry policy, one set of error codes. */
export {
  createHttpClient,
  type HttpClient,
  type HttpClientOptions,
  type JsonRequest,
  type JsonResponse,
  type RetryEvent,
  type RetryStats,
} from './http-client.js';
export {
  HTTP_FINAL_CODES,
  HTTP_TRANSIENT_CODES,
  HttpError,
  type HttpErrorCode,
  type HttpErrorContext,
  type HttpFinalCode,
  type HttpTransientCode,
} from './http-errors.js';
export { judgeStatus, type StatusVerdict } from './retry-policy.js';
export { type DecodedBody, decodeBody, isJsonContentType } from './response-body.js';
