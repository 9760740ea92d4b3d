// The agent's own HTTP requests to Caddy's admin API and to an app's published port, through node:http. `fetch()` would
// load Node's bundled undici on first use: +13 MB resident in a bare process, ~9 MB in the idle agent (decision 0042).
import http from 'node:http';

export interface PlainAnswer {
  status: number;
  /** The body as text; empty with `statusOnly`. */
  text: string;
}

export interface PlainRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** The whole request (connect, send, answer) must end within this, or it fails with code ETIMEDOUT. */
  timeoutMs: number;
  /** Resolve at the status line and drop the connection: a probe needs no body (an endless one would hold it). */
  statusOnly?: boolean;
}

/**
 * One request on a connection of its own (no keep-alive: Caddy closes idle connections at each config reload, and a
 * reused one would fail as the request leaves). Rejects with the connection's own error, whose `code` says what
 * happened (ECONNREFUSED, ECONNRESET, HPE_… for an answer that is not HTTP, ETIMEDOUT).
 */
export function plainRequest(url: string, o: PlainRequest): Promise<PlainAnswer> {
  return new Promise<PlainAnswer>((resolve, reject) => {
    const headers = o.body === undefined ? o.headers : { ...o.headers, 'Content-Length': String(Buffer.byteLength(o.body)) };
    const req = http.request(url, { method: o.method ?? 'GET', headers, agent: false }, (res) => {
      const status = res.statusCode ?? 0;
      if (o.statusOnly) {
        clearTimeout(timer);
        res.destroy();
        resolve({ status, text: '' });
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status, text: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', fail);
    });
    const timer = setTimeout(() => req.destroy(Object.assign(new Error(`no answer within ${o.timeoutMs} ms`), { code: 'ETIMEDOUT' })), o.timeoutMs);
    function fail(e: Error) {
      clearTimeout(timer);
      reject(e);
    }
    req.on('error', fail);
    req.end(o.body);
  });
}
