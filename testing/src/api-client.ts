/* eslint-disable @typescript-eslint/no-explicit-any -- tests assert response bodies with expect(); `any` keeps them short */
/** What a test sees of a response: status, headers and the body (parsed when it is JSON). */
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  /** Sent as JSON with Content-Type application/json. */
  json?: unknown;
  /** Sent as is (set Content-Type in headers yourself). */
  raw?: string | Buffer;
  headers?: Record<string, string>;
}

/**
 * An HTTP client for integration tests with a cookie jar, like a browser on the API's public origin: it sends
 * `Origin` on unsafe requests (set `origin: null` to send none), keeps `svc_session` across calls, and can act
 * with a bearer token instead.
 */
export class ApiClient {
  private readonly jar = new Map<string, string>();

  constructor(
    readonly baseUrl: string,
    private readonly options: { origin?: string | null; bearer?: string } = {},
  ) {}

  /** A client that sends only this bearer token (no cookies). */
  withBearer(token: string): ApiClient {
    return new ApiClient(this.baseUrl, { origin: this.options.origin, bearer: token });
  }

  /** A client with the same cookies but another Origin (null: none). */
  withOrigin(origin: string | null): ApiClient {
    const other = new ApiClient(this.baseUrl, { ...this.options, origin });
    for (const [k, v] of this.jar) other.jar.set(k, v);
    return other;
  }

  cookie(name: string): string | undefined {
    return this.jar.get(name);
  }

  setCookie(name: string, value: string): void {
    this.jar.set(name, value);
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }

  post<T = any>(path: string, json?: unknown, options?: RequestOptions) {
    return this.request<T>('POST', path, { ...options, ...(json !== undefined ? { json } : {}) });
  }

  patch<T = any>(path: string, json?: unknown, options?: RequestOptions) {
    return this.request<T>('PATCH', path, { ...options, ...(json !== undefined ? { json } : {}) });
  }

  put<T = any>(path: string, json?: unknown, options?: RequestOptions) {
    return this.request<T>('PUT', path, { ...options, ...(json !== undefined ? { json } : {}) });
  }

  delete<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('DELETE', path, options);
  }

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = {};
    if (this.options.bearer) headers.authorization = `Bearer ${this.options.bearer}`;
    if (this.jar.size && !this.options.bearer) headers.cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const origin = this.options.origin === undefined ? new URL(this.baseUrl).origin : this.options.origin;
    if (origin !== null && !['GET', 'HEAD'].includes(method)) headers.origin = origin;
    let body: string | Buffer | undefined = options.raw;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    }
    const res = await fetch(new URL(path, this.baseUrl), { method, headers: { ...headers, ...options.headers }, body });
    this.store(res.headers.getSetCookie());
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  private store(setCookies: string[]): void {
    for (const line of setCookies) {
      const [pair, ...attributes] = line.split(';').map((s) => s.trim());
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      const expires = attributes.find((a) => a.toLowerCase().startsWith('expires='));
      const gone = !value || (expires && new Date(expires.slice(8)).getTime() <= Date.now()) || attributes.some((a) => /^max-age=0$/i.test(a));
      if (gone) this.jar.delete(name);
      else this.jar.set(name, value);
    }
  }
}
