import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, createApiClient, unwrap } from './client';

// A tiny HTTP server that answers like the API: the client is exercised over real HTTP, through the global fetch.
let server: Server;
let baseUrl: string;
let seen: { method?: string; url?: string; headers: IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      res.setHeader('content-type', 'application/json');
      if (req.url === '/v1/auth/me') {
        res.end(JSON.stringify({ user: { id: 'u1', email: 'a@example.com' } }));
      } else if (req.url?.startsWith('/v1/workspaces/w1/apps/missing')) {
        res.statusCode = 404;
        res.end(JSON.stringify({ error: { code: 'not_found', message: 'No such app in this workspace' } }));
      } else if (req.url === '/v1/workspaces/w1/apps') {
        res.statusCode = 400;
        res.end(JSON.stringify({ error: { code: 'validation_failed', message: 'The body is not valid', details: [{ path: '/name', message: 'must match' }] } }));
      } else {
        res.statusCode = 502;
        res.setHeader('content-type', 'text/plain');
        res.end('Bad gateway');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => (seen = []));

describe('createApiClient', () => {
  it('sends the bearer token and returns the data', async () => {
    const api = createApiClient({ baseUrl, token: 'swt_abc', headers: { 'user-agent': 'slipway-test' } });
    const me = await unwrap(api.GET('/v1/auth/me'));
    expect(me).toEqual({ user: { id: 'u1', email: 'a@example.com' } });
    expect(seen[0]?.headers.authorization).toBe('Bearer swt_abc');
    expect(seen[0]?.headers['user-agent']).toBe('slipway-test');
  });

  it('sends a session cookie from Node', async () => {
    const api = createApiClient({ baseUrl, cookie: 'svc_session=s1' });
    await unwrap(api.GET('/v1/auth/me'));
    expect(seen[0]?.headers.cookie).toBe('svc_session=s1');
    expect(seen[0]?.headers.authorization).toBeUndefined();
  });

  it("throws an ApiError carrying the API's status, code and message", async () => {
    const api = createApiClient({ baseUrl, token: 't' });
    const call = unwrap(api.GET('/v1/workspaces/{workspaceId}/apps/{appId}', { params: { path: { workspaceId: 'w1', appId: 'missing' } } }));
    await expect(call).rejects.toMatchObject({ name: 'ApiError', status: 404, code: 'not_found', message: 'No such app in this workspace' });
  });

  it('keeps the validation details', async () => {
    const api = createApiClient({ baseUrl, token: 't' });
    const error = await unwrap(api.POST('/v1/workspaces/{workspaceId}/apps', { params: { path: { workspaceId: 'w1' } }, body: { name: 'x' } as never })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'validation_failed', details: [{ path: '/name', message: 'must match' }] });
    expect(seen[0]?.body).toBe('{"name":"x"}');
  });

  it('makes an error of an answer that is not the API’s (a proxy in front)', async () => {
    const api = createApiClient({ baseUrl, token: 't' });
    await expect(unwrap(api.GET('/v1/plans'))).rejects.toMatchObject({ status: 502, code: 'internal', message: 'Bad gateway' });
  });
});

describe('the package in a browser', () => {
  it('bundles for the browser with nothing of Node (esbuild refuses node: modules on platform browser)', async () => {
    const { build } = await import('esbuild');
    const result = await build({ entryPoints: [`${__dirname}/index.ts`], bundle: true, platform: 'browser', format: 'esm', write: false, logLevel: 'silent' });
    expect(result.errors).toEqual([]);
    expect(result.outputFiles[0]?.text).toContain('Bearer ');
  });
});
