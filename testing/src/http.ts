import { request } from 'node:http';

export interface HostResponse {
  status: number;
  body: string;
}

/**
 * One HTTP request on a connection of its own. Caddy closes idle connections when its config changes, so a pooled
 * `fetch` that reuses one fails with "other side closed" (its admin API and the ingress alike).
 */
export function requestFresh(url: string, o: { method?: string; headers?: Record<string, string>; timeoutMs?: number } = {}): Promise<HostResponse> {
  const timeoutMs = o.timeoutMs ?? 5_000;
  return new Promise((resolve, reject) => {
    const req = request(url, { method: o.method ?? 'GET', headers: o.headers ?? {}, timeout: timeoutMs, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** GET through the ingress with a Host header (fetch() will not send a custom Host), on a fresh connection. */
export function getWithHost(url: string, host: string, timeoutMs = 5_000): Promise<HostResponse> {
  return requestFresh(url, { headers: { Host: host }, timeoutMs });
}
