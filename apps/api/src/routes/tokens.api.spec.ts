import { createHmac } from 'node:crypto';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { startTestApi, TEST_SESSION_KEY, type TestApi } from '@slipway/testing/api';

describe('API tokens (real PostgreSQL, through HTTP)', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  async function setup() {
    const owner = api.client();
    const me = await signUp(owner);
    const w = await createWorkspace(owner);
    return { owner, me, w };
  }

  async function join(owner: ApiClient, workspaceId: string, role: string) {
    const c = api.client();
    const s = await signUp(c);
    expect((await owner.post(`/v1/workspaces/${workspaceId}/members`, { email: s.email, role })).status).toBe(201);
    return { client: c, user: s.user };
  }

  it('creates a token whose value is shown once and stored only as a keyed hash', async () => {
    const { owner, me, w } = await setup();
    const res = await owner.post(`/v1/workspaces/${w.id}/tokens`, { name: 'deploy bot', expiresInDays: 30 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'deploy bot',
      prefix: res.body.token.slice(0, 12),
      createdBy: { id: me.user.id, name: me.user.name },
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
      lastUsedAt: null,
      token: expect.stringMatching(/^svc_[A-Za-z0-9_-]{43}$/),
    });
    expect(new Date(res.body.expiresAt).getTime() - new Date(res.body.createdAt).getTime()).toBeCloseTo(30 * 86400_000, -4);

    const row = await api.db.apiToken.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(Buffer.from(row.tokenHash).equals(createHmac('sha256', TEST_SESSION_KEY).update(res.body.token).digest())).toBe(true);
    expect(JSON.stringify(row)).not.toContain(res.body.token.slice(12));

    const list = await owner.get(`/v1/workspaces/${w.id}/tokens`);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([{ ...res.body, token: undefined }].map(({ token: _t, ...rest }) => rest));
    expect(list.text).not.toContain(res.body.token);
  });

  it('authenticates as the creator with the creator\'s role, and keeps lastUsedAt', async () => {
    const { owner, w } = await setup();
    const { token, id } = (await owner.post(`/v1/workspaces/${w.id}/tokens`, { name: 'ci' })).body;
    const bearer = owner.withBearer(token);
    const read = await bearer.get(`/v1/workspaces/${w.id}`);
    expect(read.status).toBe(200);
    expect(read.body.role).toBe('owner');
    expect((await bearer.patch(`/v1/workspaces/${w.id}`, { name: 'Renamed by CI' })).status).toBe(200);
    const listed = (await owner.get(`/v1/workspaces/${w.id}/tokens`)).body.data.find((t: { id: string }) => t.id === id);
    expect(Date.now() - new Date(listed.lastUsedAt).getTime()).toBeLessThan(60_000);

    const viewer = await join(owner, w.id, 'developer');
    const devToken = (await viewer.client.post(`/v1/workspaces/${w.id}/tokens`, { name: 'dev' })).body.token;
    await owner.patch(`/v1/workspaces/${w.id}/members/${viewer.user.id}`, { role: 'viewer' });
    const demoted = viewer.client.withBearer(devToken);
    expect((await demoted.get(`/v1/workspaces/${w.id}`)).body.role).toBe('viewer');
    const mutate = await demoted.patch(`/v1/workspaces/${w.id}`, { name: 'nope' });
    expect(mutate.status).toBe(403);
    expect(mutate.body.error.code).toBe('forbidden');
  });

  it('answers 404 for a token sent to another workspace, even one its creator owns', async () => {
    const { owner, w } = await setup();
    const second = await createWorkspace(owner, 'Second');
    const token = (await owner.post(`/v1/workspaces/${w.id}/tokens`, { name: 'scoped' })).body.token;
    const bearer = owner.withBearer(token);
    for (const res of [
      await bearer.get(`/v1/workspaces/${second.id}`),
      await bearer.get(`/v1/workspaces/${second.id}/plan`),
      await bearer.patch(`/v1/workspaces/${second.id}`, { name: 'x' }),
      await bearer.delete(`/v1/workspaces/${second.id}`),
      await bearer.get(`/v1/workspaces/${second.id}/members`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect((await owner.get(`/v1/workspaces/${second.id}`)).status).toBe(200);
  });

  it('revokes: the token answers 401 from the next request on', async () => {
    const { owner, w } = await setup();
    const { token, id } = (await owner.post(`/v1/workspaces/${w.id}/tokens`, { name: 'short-lived' })).body;
    const bearer = owner.withBearer(token);
    expect((await bearer.get(`/v1/workspaces/${w.id}`)).status).toBe(200);
    const res = await owner.delete(`/v1/workspaces/${w.id}/tokens/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    const after = await bearer.get(`/v1/workspaces/${w.id}`);
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('unauthorized');
    expect((await owner.get(`/v1/workspaces/${w.id}/tokens`)).body.data).toEqual([]);
    expect((await owner.delete(`/v1/workspaces/${w.id}/tokens/${id}`)).status).toBe(404);
  });

  it('lets a token revoke itself', async () => {
    const { owner, w } = await setup();
    const { token, id } = (await owner.post(`/v1/workspaces/${w.id}/tokens`, { name: 'self' })).body;
    expect((await owner.withBearer(token).delete(`/v1/workspaces/${w.id}/tokens/${id}`)).status).toBe(200);
    expect((await owner.withBearer(token).get(`/v1/workspaces/${w.id}`)).status).toBe(401);
  });

  it('answers 401 at once for an expired token', async () => {
    const { owner, w } = await setup();
    const { token, id } = (await owner.post(`/v1/workspaces/${w.id}/tokens`, { name: 'expiring', expiresInDays: 1 })).body;
    expect((await owner.withBearer(token).get(`/v1/workspaces/${w.id}`)).status).toBe(200);
    await api.db.apiToken.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 1) } });
    expect((await owner.withBearer(token).get(`/v1/workspaces/${w.id}`)).status).toBe(401);
  });

  it('needs the session to create tokens: a token cannot mint another (401 session_required)', async () => {
    const { owner, w } = await setup();
    const { token } = (await owner.post(`/v1/workspaces/${w.id}/tokens`, { name: 'ci' })).body;
    const res = await owner.withBearer(token).post(`/v1/workspaces/${w.id}/tokens`, { name: 'child' });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('session_required');
  });

  it("shows developers only their own tokens; they cannot revoke others' (404); viewers cannot create (403)", async () => {
    const { owner, w } = await setup();
    const ownerToken = (await owner.post(`/v1/workspaces/${w.id}/tokens`, { name: 'owner' })).body;
    const dev = await join(owner, w.id, 'developer');
    const devToken = (await dev.client.post(`/v1/workspaces/${w.id}/tokens`, { name: 'dev' })).body;
    expect((await dev.client.get(`/v1/workspaces/${w.id}/tokens`)).body.data.map((t: { id: string }) => t.id)).toEqual([devToken.id]);
    expect((await owner.get(`/v1/workspaces/${w.id}/tokens`)).body.data.map((t: { id: string }) => t.id)).toEqual([ownerToken.id, devToken.id]);
    expect((await dev.client.delete(`/v1/workspaces/${w.id}/tokens/${ownerToken.id}`)).status).toBe(404);
    expect((await owner.withBearer(ownerToken.token).get(`/v1/workspaces/${w.id}`)).status).toBe(200);
    expect((await dev.client.delete(`/v1/workspaces/${w.id}/tokens/${devToken.id}`)).status).toBe(200);

    const viewer = await join(owner, w.id, 'viewer');
    const denied = await viewer.client.post(`/v1/workspaces/${w.id}/tokens`, { name: 'v' });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('forbidden');
    expect((await viewer.client.get(`/v1/workspaces/${w.id}/tokens`)).body.data).toEqual([]);
    expect((await viewer.client.delete(`/v1/workspaces/${w.id}/tokens/${ownerToken.id}`)).body.error.code).toBe('forbidden');
  });

  it('validates the body: name 1 to 64 characters, expiresInDays 1 to 365, nothing else', async () => {
    const { owner, w } = await setup();
    const res = await owner.post(`/v1/workspaces/${w.id}/tokens`, { name: '', expiresInDays: 0, scopes: ['all'] });
    expect(res.status).toBe(400);
    expect([...new Set(res.body.error.details.map((d: { field: string }) => d.field))].sort()).toEqual(['/expiresInDays', '/name', '/scopes']);
  });
});
