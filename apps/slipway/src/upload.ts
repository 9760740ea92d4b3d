// Streams a file as a raw request body with a progress callback (fetch has no upload progress): the .zip of
// `slipway deploy` and `slipway files put`.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { ApiError } from '@slipway/api-client';
import { VERSION } from './context';

export async function uploadFile(
  url: string,
  options: { method: 'POST' | 'PUT'; token: string; file: string; contentType: string; onProgress?: (sent: number, total: number) => void },
): Promise<unknown> {
  const total = (await stat(options.file)).size;
  const target = new URL(url);
  const transport = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = transport.request(
      target,
      {
        method: options.method,
        headers: {
          authorization: `Bearer ${options.token}`,
          'content-type': options.contentType,
          'content-length': String(total),
          'user-agent': `slipway-cli/${VERSION} node/${process.versions.node}`,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // not JSON: kept as text for the error
          }
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve(body);
          else reject(ApiError.from(status, body, res.statusMessage));
        });
      },
    );
    req.on('error', reject);
    let sent = 0;
    const stream = createReadStream(options.file, { highWaterMark: 256 * 1024 });
    stream.on('data', (chunk) => {
      sent += chunk.length;
      options.onProgress?.(sent, total);
    });
    stream.on('error', (e) => req.destroy(e));
    stream.pipe(req);
  });
}
