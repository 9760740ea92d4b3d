import { request } from 'node:http';

export interface HostResponse {
  status: number;
  body: string;
}

/**
 * GET through the ingress with a Host header (fetch() will not send a custom Host). A fresh connection
 * each time: Caddy closes idle connections when its config changes, and a reused one would hang up.
 */
export function getWithHost(url: string, host: string, timeoutMs = 5_000): Promise<HostResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', headers: { Host: host }, timeout: timeoutMs, agent: false }, (res) => {
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
