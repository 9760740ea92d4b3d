import { request } from 'node:http';

export interface SocketAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body parsed as JSON (the operator API answers JSON only). */
  body: unknown;
}

/**
 * One HTTP request over a Unix socket, as `curl --unix-socket FILE http://operator/PATH` sends it (the tests' client
 * of the operator API). `body`: an object is sent as JSON; a string or Buffer as it is, with `headers` choosing its type.
 */
export function socketRequest(socketPath: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<SocketAnswer> {
  const payload = body === undefined ? undefined : typeof body === 'string' || Buffer.isBuffer(body) ? Buffer.from(body) : Buffer.from(JSON.stringify(body));
  const sentHeaders: Record<string, string> = {
    host: 'operator',
    ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}),
    ...headers,
  };
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, method, path, headers: sentHeaders }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        try {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? (JSON.parse(text) as unknown) : null });
        } catch {
          reject(new Error(`The operator API answered ${res.statusCode} with a body that is not JSON: ${text.slice(0, 200)}`));
        }
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}
