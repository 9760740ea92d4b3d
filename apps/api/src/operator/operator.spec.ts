// The operator API's listener and its checks of input, without services: the socket file (mode 0600, a stale one
// replaced, a live one or a file never), the document against the routes and the error table, and every refusal that
// is answered before a service is asked (400 with details, 404, 413, 415), over the real socket.
import { lstat, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger } from '@slipway/config';
import { OPERATOR_OPERATIONS, operatorApiDocument, operatorErrors, type OperatorOperationSpec } from '@slipway/contracts';
import { ERROR_CODES, OperatorService } from '@slipway/core';
import { ERROR_STATUS } from '../http/error-status';
import { createOperatorApp } from './operator.routes';
import { serveOperatorSocket, type OperatorSocket } from './operator.socket';
import { socketRequest } from './socket-request';

const logger = createLogger('test', 'silent');
// Every request below is refused before a service is asked: any call would answer 500 and fail the test.
const untouched = new OperatorService({ nodes: {} as never, usages: {} as never, moves: {} as never, clock: () => new Date() });

describe('the operator socket', () => {
  let dir: string;
  const violations: unknown[] = [];
  const app = createOperatorApp({ operator: untouched, logger, onContractViolation: (v) => violations.push(v) });
  let served: OperatorSocket;
  let socket: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'op-'));
    socket = path.join(dir, 'run', 'operator.sock');
    served = await serveOperatorSocket(socket, app);
  });
  afterAll(async () => {
    await served?.close(100);
    await rm(dir, { recursive: true, force: true });
  });
  afterEach(() => expect(violations).toEqual([]));

  it('is a socket of mode 0600 owned by this process, in a folder it made for itself only', async () => {
    const file = await lstat(socket);
    expect({ socket: file.isSocket(), mode: (file.mode & 0o777).toString(8), uid: file.uid }).toEqual({ socket: true, mode: '600', uid: process.getuid!() });
    expect(((await lstat(path.dirname(socket))).mode & 0o777).toString(8)).toBe('700');
  });

  it('refuses to start where another process serves the socket, or where a file that is not a socket lies', async () => {
    await expect(serveOperatorSocket(socket, app)).rejects.toThrow(`Another process serves the operator socket ${socket} (is another API running?)`);
    const plain = path.join(dir, 'plain');
    await writeFile(plain, 'keep me');
    await expect(serveOperatorSocket(plain, app)).rejects.toThrow(`${plain} exists and is not a socket; the operator API will not replace it (SLIPWAY_OPERATOR_SOCKET)`);
    await expect(serveOperatorSocket('run/operator.sock', app)).rejects.toThrow(/must be absolute/);
    await expect(serveOperatorSocket(`/${'x'.repeat(120)}`, app)).rejects.toThrow(/is 121 bytes; a Unix socket's path holds at most 107/);
  });

  it('replaces a socket file left by a process that ended, and removes its own when closed', async () => {
    const stale = path.join(dir, 'stale.sock');
    // A process that listened there and was killed (SIGKILL: nothing removes its file).
    const child = spawn(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(stale)}, () => console.log('up'))`]);
    await once(child.stdout, 'data');
    child.kill('SIGKILL');
    await once(child, 'exit');
    expect((await lstat(stale)).isSocket()).toBe(true);
    const again = await serveOperatorSocket(stale, app);
    expect((await socketRequest(stale, 'GET', '/v1/openapi.json')).status).toBe(200);
    await again.close(100);
    await expect(lstat(stale)).rejects.toThrow(/ENOENT/);
  });

  it('serves its document and answers 404 not_found for anything else', async () => {
    expect(await socketRequest(socket, 'GET', '/v1/openapi.json')).toMatchObject({ status: 200, body: operatorApiDocument() });
    expect(await socketRequest(socket, 'GET', '/v1/workspaces')).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found', message: 'No such endpoint of the operator API (GET /v1/openapi.json lists them)' } },
    });
    expect((await socketRequest(socket, 'DELETE', '/v1/nodes')).status).toBe(404);
  });

  it('refuses bad input in the public API error shape, with sentences and the failing fields', async () => {
    const move = (body: unknown, headers?: Record<string, string>) => socketRequest(socket, 'POST', '/v1/workspaces/shop/move', body, headers);
    expect(await move({})).toEqual(expect.objectContaining({ status: 400, body: { error: { code: 'validation_failed', message: 'The request body is invalid', details: [{ field: '/to', message: 'is required' }] } } }));
    expect((await move({ to: 'b', now: true })).body).toEqual({ error: { code: 'validation_failed', message: 'The request body is invalid', details: [{ field: '/now', message: 'is not allowed' }] } });
    expect((await move('{"to":')).body).toEqual({ error: { code: 'invalid_json', message: 'The request body is not valid JSON' } });
    expect(await move('to=b', { 'content-type': 'application/x-www-form-urlencoded' })).toMatchObject({ status: 415, body: { error: { code: 'unsupported_media_type' } } });
    expect(await move({ to: 'b'.repeat(70_000) })).toMatchObject({ status: 413, body: { error: { code: 'payload_too_large', message: 'The request body is too large' } } });
    expect(await socketRequest(socket, 'GET', '/v1/moves?limit=0')).toEqual(
      expect.objectContaining({ status: 400, body: { error: { code: 'validation_failed', message: 'The query string is invalid', details: [{ field: '/query/limit', message: 'must be >= 1' }] } } }),
    );
    expect((await socketRequest(socket, 'GET', '/v1/moves?workspace=shop')).body).toMatchObject({ error: { code: 'validation_failed', details: [{ field: '/query/workspace' }] } });
  });

  it('answers 404 with a sentence for path parameters that cannot name a server, workspace or move', async () => {
    expect(await socketRequest(socket, 'POST', '/v1/nodes/..%2Fetc/cordon')).toEqual(expect.objectContaining({ status: 404, body: { error: { code: 'not_found', message: 'No server is enrolled as "../etc"' } } }));
    expect((await socketRequest(socket, 'POST', '/v1/workspaces/Shop%20One/move', { to: 'b' })).body).toEqual({ error: { code: 'not_found', message: 'No live workspace has the id or slug "Shop One"' } });
    expect((await socketRequest(socket, 'GET', '/v1/moves/42')).body).toEqual({ error: { code: 'not_found', message: 'No move has the id 42' } });
    expect((await socketRequest(socket, 'POST', '/v1/moves/42/cancel')).status).toBe(404);
  });
});

describe('the operator document and its routes', () => {
  it('gives every error code it names the status of the error table', () => {
    for (const [id, spec] of Object.entries(OPERATOR_OPERATIONS) as [string, OperatorOperationSpec][]) {
      for (const [status, codes] of operatorErrors(spec)) {
        for (const code of codes) {
          expect({ id, code, known: (ERROR_CODES as readonly string[]).includes(code) }).toEqual({ id, code, known: true });
          expect({ id, code, status: ERROR_STATUS[code as keyof typeof ERROR_STATUS] }).toEqual({ id, code, status });
        }
      }
    }
  });

  it('routes exactly the operations of the document', () => {
    const app = createOperatorApp({ operator: untouched, logger });
    const routes = (app as unknown as { router: { stack: { route?: { path: string; methods: Record<string, boolean> } }[] } }).router.stack
      .filter((l) => l.route)
      .flatMap((l) => Object.keys(l.route!.methods).map((m) => `${m.toUpperCase()} ${l.route!.path}`))
      .sort();
    const documented = Object.entries(operatorApiDocument().paths as Record<string, Record<string, unknown>>)
      .flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p.replace(/\{([A-Za-z]+)\}/g, ':$1')}`))
      .sort();
    expect(routes).toEqual(documented);
  });
});
