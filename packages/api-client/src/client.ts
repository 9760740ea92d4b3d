// A typed client of Slipway's public API for Node ≥ 20 and browsers: openapi-fetch over the generated `paths`, with
// the credentials a caller has (a bearer token, a session cookie from Node, or the browser's own cookie).
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths } from './generated/api';

export type { components, paths, operations } from './generated/api';
export type Schemas = components['schemas'];
export type ApiClient = Client<paths>;

export interface ApiClientOptions {
  /** The platform's public origin, e.g. `https://slipway.example.com` (the `/v1/...` paths are appended). */
  baseUrl: string;
  /** A workspace token (`svc_...`), sent as `Authorization: Bearer`. */
  token?: string;
  /** A session cookie value for Node callers (`svc_session=...`); browsers send theirs with `credentials`. */
  cookie?: string;
  /** `include` in a browser served from another origin; the default `same-origin` suits the console. */
  credentials?: 'include' | 'same-origin' | 'omit';
  /** Headers added to every request (a User-Agent, for example). */
  headers?: Record<string, string>;
  /** A fetch of one's own (tests, a proxy, progress reporting); the global fetch otherwise. */
  fetch?: ClientOptions['fetch'];
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.cookie) headers.cookie = options.cookie;
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers,
    credentials: options.credentials ?? 'same-origin',
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

export interface ApiErrorDetail {
  path?: string;
  message?: string;
  [key: string]: unknown;
}

/** An answer of the API that is not a success: its status, its `code` and its `message` (a sentence for people). */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: readonly ApiErrorDetail[] = [],
  ) {
    super(message);
  }

  /** The error an answer carries: the API's `{ error: { code, message } }`, or one made from the status line. */
  static from(status: number, body: unknown, statusText = ''): ApiError {
    const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null | undefined)?.error;
    if (error && typeof error.code === 'string' && typeof error.message === 'string') {
      return new ApiError(status, error.code, error.message, Array.isArray(error.details) ? (error.details as ApiErrorDetail[]) : []);
    }
    const text = typeof body === 'string' && body.trim() ? body.trim().slice(0, 200) : statusText || `HTTP ${status}`;
    return new ApiError(status, status >= 500 ? 'internal' : 'http_error', text);
  }
}

interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * The data of a successful call, or throws its ApiError: `const app = await unwrap(api.GET('/v1/...', {...}))`.
 * A network failure rejects with fetch's own error.
 */
export async function unwrap<T>(call: Promise<FetchResult<T>>): Promise<Exclude<T, undefined>> {
  const { data, error, response } = await call;
  if (!response.ok || error !== undefined) throw ApiError.from(response.status, error, response.statusText);
  return data as Exclude<T, undefined>;
}
