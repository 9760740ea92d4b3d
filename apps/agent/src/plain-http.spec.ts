import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { plainRequest } from './plain-http';

/** A local server answering with `handler`; its base URL. */
async function serve(handler: http.RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** A TCP listener that accepts and then does `onSocket` (nothing, or bytes that are not HTTP). */
async function rawListener(onSocket: (s: net.Socket) => void): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => (sockets.add(s), onSocket(s)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** `/moved` redirects; anything else gets a 200 whose body never ends. */
const redirectOrStream: http.RequestListener = (req, res) => {
  if (req.url === '/moved') return void res.writeHead(302, { Location: '/elsewhere' }).end();
  res.writeHead(200);
  res.write('streaming forever');
};

describe('plainRequest', () => {
  it('sends the method, headers and body, and gives the status and the whole answer', async () => {
    const s = await serve((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => res.writeHead(201, { 'Content-Type': 'application/json' }).end(JSON.stringify({ method: req.method, type: req.headers['content-type'], length: req.headers['content-length'], body })));
    });
    try {
      const res = await plainRequest(`${s.url}/config/x`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: '{"é":1}', timeoutMs: 5_000 });
      expect(res.status).toBe(201);
      expect(JSON.parse(res.text)).toEqual({ method: 'PUT', type: 'application/json', length: '8', body: '{"é":1}' });
    } finally {
      await s.close();
    }
  });

  it('with statusOnly, answers at the status line even when the body never ends; a redirect is not followed', async () => {
    const s = await serve(redirectOrStream);
    try {
      await expect(plainRequest(`${s.url}/`, { timeoutMs: 2_000, statusOnly: true })).resolves.toEqual({ status: 200, text: '' });
      await expect(plainRequest(`${s.url}/moved`, { timeoutMs: 2_000 })).resolves.toMatchObject({ status: 302 });
    } finally {
      await s.close();
    }
  });

  it('fails with the code of what happened: refused, no answer in time, an answer that is not HTTP', async () => {
    const closed = await rawListener(() => undefined);
    const url = closed.url;
    await closed.close();
    await expect(plainRequest(url, { timeoutMs: 2_000 })).rejects.toMatchObject({ code: 'ECONNREFUSED' });

    const silent = await rawListener(() => undefined);
    const garbage = await rawListener((s) => s.end('SSH-2.0-OpenSSH_9.2\r\n'));
    try {
      const t0 = Date.now();
      await expect(plainRequest(silent.url, { timeoutMs: 300 })).rejects.toMatchObject({ code: 'ETIMEDOUT', message: 'no answer within 300 ms' });
      expect(Date.now() - t0).toBeLessThan(2_000);
      await expect(plainRequest(garbage.url, { timeoutMs: 2_000 })).rejects.toMatchObject({ code: expect.stringMatching(/^HPE_/) });
    } finally {
      await silent.close();
      await garbage.close();
    }
  });
});
