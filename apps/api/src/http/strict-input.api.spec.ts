// Hostile text and numbers on the routes that answered 500 or stored garbage before (issue 18): NUL and lone
// surrogates in names, invalid UTF-8 in a body, exotic numbers in the query string, undecodable path segments.
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { startTestApi, type TestApi } from '@slipway/testing/api';

describe('text and numbers a client sends (real PostgreSQL, through HTTP)', () => {
  let api: TestApi;
  let owner: ApiClient;
  let ws: { id: string };
  let appId: string;

  beforeAll(async () => {
    api = await startTestApi();
    owner = api.client();
    await signUp(owner);
    ws = await createWorkspace(owner);
    const app = await owner.post(`/v1/workspaces/${ws.id}/apps`, { name: 'web', kind: 'web', source: 'image', image: 'nginx:1', memoryMb: 128 });
    expect(app.status).toBe(201);
    appId = app.body.id;
  });
  afterAll(() => api.close());

  const refused = (res: { status: number; body: { error?: { code: string; details?: { field: string }[] } } }, field: string) => {
    expect(res.status).toBe(400);
    expect(res.body.error?.code).toBe('validation_failed');
    expect(res.body.error?.details?.map((d) => d.field)).toContain(field);
  };

  it('refuses NUL, other control characters and lone surrogates in names with 400 naming the field', async () => {
    for (const bad of ['nul\u0000name', 'tab\tname', 'new\nline', 'del\u007f', 'lone \ud800', 'lone \udc00 low']) {
      refused(await owner.post('/v1/workspaces', { name: bad }), '/name');
      refused(await owner.patch(`/v1/workspaces/${ws.id}`, { name: bad }), '/name');
      refused(await owner.post(`/v1/workspaces/${ws.id}/tokens`, { name: bad }), '/name');
      refused(await owner.post(`/v1/workspaces/${ws.id}/apps`, { name: bad, kind: 'worker', source: 'image', image: 'nginx:1', memoryMb: 128 }), '/name');
      refused(await owner.patch(`/v1/workspaces/${ws.id}/apps/${appId}`, { name: bad }), '/name');
    }
    // Nothing of it was stored.
    const names = (await owner.get('/v1/workspaces')).body.data.map((w: { name: string }) => w.name);
    // eslint-disable-next-line no-control-regex
    expect(names.some((n: string) => /[\u0000-\u001f\u007f\ufffd]/.test(n))).toBe(false);
    // Unicode that is well-formed is welcome, surrogate pairs included.
    const fine = await owner.patch(`/v1/workspaces/${ws.id}`, { name: 'Équipe 🚀 東京' });
    expect(fine.status).toBe(200);
    expect(fine.body.name).toBe('Équipe 🚀 東京');
  });

  it('keeps tab, LF, CR and escapes in variable values byte for byte, refusing only NUL and lone surrogates', async () => {
    const env = `/v1/workspaces/${ws.id}/apps/${appId}/env`;
    const pem = '-----BEGIN PRIVATE KEY-----\r\nMIIE\tvQ==\n\u001b[1mbold\u001b[0m\n-----END PRIVATE KEY-----\n';
    const put = await owner.put(env, { variables: [{ key: 'PEM', value: pem }, { key: 'JSON', value: '{\n  "a": 1\n}' }] });
    expect(put.status).toBe(200);
    const got = await owner.get(env);
    expect(got.body.data.find((v: { key: string }) => v.key === 'PEM').value).toBe(pem);
    refused(await owner.put(env, { variables: [{ key: 'A', value: 'x\u0000y' }] }), '/variables/0/value');
    refused(await owner.put(env, { variables: [{ key: 'A', value: 'ok' }, { key: 'B', value: '\udbff' }] }), '/variables/1/value');
    refused(await owner.put(env, { variables: [{ key: 'A\n', value: 'ok' }] }), '/variables/0/key');
  });

  it('refuses a JSON body that is not valid UTF-8 with 400 invalid_json instead of storing U+FFFD', async () => {
    for (const bytes of [
      Buffer.concat([Buffer.from('{"name":"bad '), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
      Buffer.concat([Buffer.from('{"name":"cesu '), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]), // an encoded surrogate
      Buffer.concat([Buffer.from('{"name":"cut '), Buffer.from([0xe2, 0x82]), Buffer.from('"}')]),
      Buffer.concat([Buffer.from('{"name":"overlong '), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]),
    ]) {
      const res = await owner.post('/v1/workspaces', undefined, { raw: bytes, headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: { code: 'invalid_json', message: 'The request body is not valid UTF-8' } });
    }
    const utf16 = await owner.post('/v1/workspaces', undefined, {
      raw: Buffer.concat([Buffer.from('{"name":"x', 'utf16le'), Buffer.from([0x00, 0xd8]), Buffer.from('"}', 'utf16le')]),
      headers: { 'content-type': 'application/json; charset=utf-16le' },
    });
    expect(utf16.status).toBe(400);
    expect(utf16.body.error.code).toBe('invalid_json');
    const names = (await owner.get('/v1/workspaces')).body.data.map((w: { name: string }) => w.name);
    expect(names.some((n: string) => n.includes('\ufffd'))).toBe(false);
  });

  it('answers 400 naming the parameter for numbers a query string cannot mean (1e309 was a 500)', async () => {
    const deployments = `/v1/workspaces/${ws.id}/apps/${appId}/deployments`;
    for (const limit of ['1e309', '-1', '1.5', 'NaN', '0x10', 'Infinity', '', '1e2', '%20%35', '101', '99999999999999999999']) {
      const res = await owner.get(`${deployments}?limit=${limit}`);
      expect([limit, res.status, res.body.error?.code, res.body.error?.details?.[0]?.field]).toEqual([limit, 400, 'validation_failed', '/query/limit']);
    }
    for (const after of ['-1', '1e309', '2147483648', '9007199254740992']) {
      const res = await owner.get(`${deployments}/01936f3e-8a2b-7c4d-9e0f-123456789abc/logs?after=${after}`);
      expect([after, res.status, res.body.error?.details?.[0]?.field]).toEqual([after, 400, '/query/after']);
    }
    expect((await owner.get(`${deployments}?limit=100`)).status).toBe(200);
    const cursor = await owner.get(`${deployments}?cursor=%00`);
    refused(cursor, '/query/cursor');
  });

  it('answers 404 for path ids that are malformed or not even decodable, never 500', async () => {
    for (const id of ['not-a-uuid', '%E0%A4%A', '%ZZ', '%00', '%C0%AF', `${'a'.repeat(5000)}`]) {
      const res = await owner.get(`/v1/workspaces/${id}/apps`);
      expect([id.slice(0, 12), res.status, res.body.error?.code]).toEqual([id.slice(0, 12), 404, 'not_found']);
      const del = await owner.delete(`/v1/workspaces/${ws.id}/tokens/${id}`);
      expect([id.slice(0, 12), del.status]).toEqual([id.slice(0, 12), 404]);
    }
  });
});
