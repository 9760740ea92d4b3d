import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { SecretBox, WorkspaceBackupKeys } from '@slipway/core';
import { createJobStores } from '@slipway/db';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { startTestApi, TEST_ENCRYPTION_KEY, type TestApi } from '@slipway/testing/api';
import { S3RVER_ACCESS_KEY_ID, startTestS3, type TestS3 } from '@slipway/testing/s3';

// Backup destinations (issue 33 item 1) over HTTP, the test call against a real S3-protocol server (s3rver).
describe('backup destinations (real PostgreSQL, s3rver, through HTTP)', () => {
  let api: TestApi;
  let s3: TestS3;
  const SECRET = `secret-${randomUUID()}`;
  beforeAll(async () => {
    api = await startTestApi();
    // The front checks SigV4 signatures: only this secret signs right for the key id.
    s3 = await startTestS3({ buckets: ['backups'], credentials: { [S3RVER_ACCESS_KEY_ID]: SECRET } });
  });
  afterAll(async () => {
    await s3.close();
    await api.close();
  });

  const body = (over: Record<string, unknown> = {}) => ({
    name: 'offsite',
    endpoint: s3.endpoint,
    region: 'us-east-1',
    bucket: 'backups',
    prefix: 'slipway/',
    pathStyle: true,
    accessKeyId: S3RVER_ACCESS_KEY_ID,
    secretKey: SECRET,
    ...over,
  });

  async function setup() {
    const owner = api.client();
    await signUp(owner);
    const w = await createWorkspace(owner);
    return { owner, w, base: `/v1/workspaces/${w.id}/backup-destinations` };
  }

  async function join(owner: ApiClient, workspaceId: string, role: string) {
    const c = api.client();
    const s = await signUp(c);
    expect((await owner.post(`/v1/workspaces/${workspaceId}/members`, { email: s.email, role })).status).toBe(201);
    return c;
  }

  async function insertDatabase(workspaceId: string) {
    const slug = `db-${randomUUID().slice(0, 8)}`;
    return api.db.database.create({
      data: {
        workspaceId, name: slug, slug, engine: 'postgres', version: '15', cpuMillis: 500, memoryMb: 256, diskMb: 1024,
        username: 'app', databaseName: 'app', passwordSealed: 'v1.x.y.z', status: 'running',
      },
    });
  }

  it('creates, lists, reads, changes and removes a destination; the secret key is sealed and never returned', async () => {
    const { owner, base } = await setup();
    const created = await owner.post(base, body());
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String), workspaceId: expect.any(String), name: 'offsite', endpoint: s3.endpoint, region: 'us-east-1',
      bucket: 'backups', prefix: 'slipway/', pathStyle: true, accessKeyId: S3RVER_ACCESS_KEY_ID, isDefault: false,
      createdAt: expect.any(String), updatedAt: expect.any(String),
    });
    const row = await api.db.backupDestination.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(row.secretKeySealed).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain(SECRET);

    const list = await owner.get(base);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([created.body]);
    const one = await owner.get(`${base}/${created.body.id}`);
    expect(one.body).toEqual(created.body);

    const patched = await owner.patch(`${base}/${created.body.id}`, { name: 'r2', secretKey: 'another-secret', isDefault: true });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'r2', isDefault: true });
    const after = await api.db.backupDestination.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(after.secretKeySealed).not.toBe(row.secretKeySealed);
    expect([created.text, list.text, one.text, patched.text].join('')).not.toContain(SECRET);
    expect(patched.text).not.toContain('another-secret');

    expect((await owner.delete(`${base}/${created.body.id}`)).body).toEqual({ ok: true });
    expect((await owner.get(`${base}/${created.body.id}`)).status).toBe(404);
    expect((await owner.get(base)).body.data).toEqual([]);
  });

  it('refuses a taken name, bad fields and a secret in the answer of a refusal', async () => {
    const { owner, base } = await setup();
    expect((await owner.post(base, body())).status).toBe(201);
    const taken = await owner.post(base, body());
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('name_taken');
    const bad = await Promise.all([
      owner.post(base, body({ name: 'second', endpoint: 'ftp://example.com' })),
      owner.post(base, body({ name: 'second', endpoint: 'https://example.com/path' })),
      owner.post(base, body({ name: 'second', bucket: 'No_Such' })),
      owner.post(base, body({ name: 'second', prefix: '/abs' })),
      owner.post(base, body({ name: 'second', secretKey: '' })),
      owner.post(base, body({ name: 'Has Spaces' })),
    ]);
    expect(bad.map((r) => r.status)).toEqual([400, 400, 400, 400, 400, 400]);
    expect(bad.map((r) => r.text).join('')).not.toContain(SECRET);
  });

  it('keeps one default per workspace', async () => {
    const { owner, base } = await setup();
    const a = await owner.post(base, body({ name: 'a', isDefault: true }));
    const b = await owner.post(base, body({ name: 'b', isDefault: true }));
    expect([a.status, b.status]).toEqual([201, 201]);
    const list = (await owner.get(base)).body.data as { name: string; isDefault: boolean }[];
    expect(list.map((d) => [d.name, d.isDefault])).toEqual([['a', false], ['b', true]]);
    await owner.patch(`${base}/${a.body.id}`, { isDefault: true });
    const again = (await owner.get(base)).body.data as { name: string; isDefault: boolean }[];
    expect(again.map((d) => [d.name, d.isDefault])).toEqual([['a', true], ['b', false]]);
  });

  it('is scoped to its workspace and changed by owners and admins only', async () => {
    const { owner, w, base } = await setup();
    const created = (await owner.post(base, body())).body;
    const stranger = api.client();
    await signUp(stranger);
    const other = await createWorkspace(stranger);
    const otherBase = `/v1/workspaces/${other.id}/backup-destinations`;
    expect((await stranger.get(`${otherBase}/${created.id}`)).status).toBe(404);
    expect((await stranger.patch(`${otherBase}/${created.id}`, { name: 'mine' })).status).toBe(404);
    expect((await stranger.delete(`${otherBase}/${created.id}`)).status).toBe(404);
    expect((await stranger.post(`${otherBase}/${created.id}/test`)).status).toBe(404);
    expect((await stranger.get(`${base}/${created.id}`)).status).toBe(404);

    const developer = await join(owner, w.id, 'developer');
    expect((await developer.get(base)).status).toBe(200);
    expect((await developer.post(base, body({ name: 'dev' }))).status).toBe(403);
    expect((await developer.post(`${base}/${created.id}/test`)).status).toBe(403);
    const admin = await join(owner, w.id, 'admin');
    expect((await admin.patch(`${base}/${created.id}`, { prefix: 'other/' })).status).toBe(200);
  });

  it('tests a destination: a probe object written, read back and deleted', async () => {
    const { owner, base } = await setup();
    const created = (await owner.post(base, body())).body;
    const res = await owner.post(`${base}/${created.id}/test`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, stage: null, reason: null, message: expect.stringMatching(/^A probe object was written to backups\/slipway\/\.slipway-probe-[0-9a-f]+, read back intact and deleted\.$/), elapsedMs: expect.any(Number), server: null });
    expect([...(await s3.objects('backups')).keys()]).toEqual([]);
  });

  const closedPort = async (): Promise<number> => {
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return port;
  };

  it.each([
    ['a bucket that does not exist', () => ({ bucket: 'gone-bucket' }), 'write', 'bucket_missing', /^Writing a probe object failed\. The bucket gone-bucket does not exist at 127\.0\.0\.1:\d+: create it/],
    ['an unknown access key id', () => ({ accessKeyId: 'NOSUCHKEY' }), 'write', 'credentials', /^Writing a probe object failed\. The storage refused the credentials \(InvalidAccessKeyId\): check the access key id NOSUCHKEY/],
    ['a wrong secret key (the server checks SigV4 signatures)', () => ({ secretKey: `wrong-${randomUUID()}` }), 'write', 'credentials', /^Writing a probe object failed\. The storage refused the credentials \(SignatureDoesNotMatch\): check the access key id S3RVER and its secret key/],
    ['a host name that does not resolve', () => ({ endpoint: 'http://no-such-host.invalid' }), 'write', 'dns', /could not be resolved \(DNS\)/],
  ])('says in words what failed: %s', async (_what, over, stage, reason, message) => {
    const { owner, base } = await setup();
    const created = (await owner.post(base, body({ name: 'broken', ...over() }))).body;
    const res = await owner.post(`${base}/${created.id}/test`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: false, stage, reason });
    expect(res.body.message).toMatch(message);
    expect(res.text).not.toContain(SECRET);
  });

  it('says in words that nothing listens at the endpoint', async () => {
    const { owner, base } = await setup();
    const port = await closedPort();
    const created = (await owner.post(base, body({ endpoint: `http://127.0.0.1:${port}` }))).body;
    const res = await owner.post(`${base}/${created.id}/test`);
    expect(res.body).toMatchObject({ ok: false, stage: 'write', reason: 'unreachable' });
    expect(res.body.message).toBe(`Writing a probe object failed. The endpoint 127.0.0.1:${port} could not be reached (ECONNREFUSED): check its address and port, and that this server may connect to it.`);
  });

  it("names a database's destination, falls back to the workspace default, and forgets a removed one", async () => {
    const { owner, w, base } = await setup();
    const database = await insertDatabase(w.id);
    const of = `/v1/workspaces/${w.id}/databases/${database.id}/backup-destination`;
    expect((await owner.get(of)).body).toEqual({ databaseId: database.id, destinationId: null, effective: null, source: 'none' });

    const fallback = (await owner.post(base, body({ name: 'fallback', isDefault: true }))).body;
    expect((await owner.get(of)).body).toEqual({ databaseId: database.id, destinationId: null, effective: { id: fallback.id, name: 'fallback' }, source: 'workspace_default' });

    const own = (await owner.post(base, body({ name: 'own' }))).body;
    const set = await owner.put(of, { destinationId: own.id });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ databaseId: database.id, destinationId: own.id, effective: { id: own.id, name: 'own' }, source: 'database' });

    await owner.delete(`${base}/${own.id}`);
    expect((await owner.get(of)).body.source).toBe('workspace_default');

    const stranger = api.client();
    await signUp(stranger);
    const foreign = (await stranger.post(`/v1/workspaces/${(await createWorkspace(stranger)).id}/backup-destinations`, body())).body;
    expect((await owner.put(of, { destinationId: foreign.id })).status).toBe(404);
    expect((await owner.put(`/v1/workspaces/${w.id}/databases/${randomUUID()}/backup-destination`, { destinationId: null })).status).toBe(404);
  });

  it('keeps one sealed backup key per workspace in PostgreSQL, the same at every use', async () => {
    const { w } = await setup();
    const keys = new WorkspaceBackupKeys({ keys: createJobStores(api.db).workspaceBackupKeys, secrets: new SecretBox(TEST_ENCRYPTION_KEY) });
    const [a, b] = await Promise.all([keys.keyOf(w.id), keys.keyOf(w.id)]);
    expect(a).toHaveLength(32);
    expect(a.equals(b)).toBe(true);
    const row = await api.db.workspaceBackupKey.findUniqueOrThrow({ where: { workspaceId: w.id } });
    expect(row.keySealed).toMatch(/^v1\./);
    expect(row.keySealed).not.toContain(a.toString('base64'));
  });
});
