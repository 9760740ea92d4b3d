import { WORKSPACE_TEARDOWN_JOB } from '@slipway/core';
import { createWorkspace, insertNode, signUp, type ApiClient } from '@slipway/testing';
import { startTestApi, type TestApi } from '@slipway/testing/api';

describe('workspaces (real PostgreSQL, through HTTP)', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  async function member(owner: ApiClient, workspaceId: string, role: string): Promise<ApiClient> {
    const c = api.client();
    const { email } = await signUp(c);
    expect((await owner.post(`/v1/workspaces/${workspaceId}/members`, { email, role })).status).toBe(201);
    return c;
  }

  describe('POST /v1/workspaces', () => {
    it('creates a workspace on the trial plan with the caller as owner, placed on an online node', async () => {
      const c = api.client();
      const { user } = await signUp(c);
      const res = await c.post('/v1/workspaces', { name: 'Acme Production' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/),
        name: 'Acme Production',
        slug: expect.stringMatching(/^acme-production/),
        role: 'owner',
        suspended: false,
        server: { status: 'reachable', since: null },
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
      const row = await api.db.workspace.findUniqueOrThrow({ where: { id: res.body.id }, include: { plan: true, memberships: true } });
      expect(row.plan.slug).toBe('trial');
      expect(row.nodeId).not.toBeNull();
      expect(row.trialEndsAt.getTime() - row.createdAt.getTime()).toBe(14 * 86400_000);
      expect(row.graceEndsAt.getTime() - row.trialEndsAt.getTime()).toBe(7 * 86400_000);
      expect(row.memberships).toEqual([expect.objectContaining({ userId: user.id, role: 'owner' })]);
    });

    it('derives a unique slug, suffixed when the name was taken', async () => {
      const a = api.client();
      const b = api.client();
      await signUp(a);
      await signUp(b);
      const first = await createWorkspace(a, 'Crème Brûlée Shop');
      const second = await createWorkspace(b, 'creme brulee shop');
      expect(first.slug).toBe('creme-brulee-shop');
      expect(second.slug).toBe('creme-brulee-shop-2');
    });

    it('answers 401 session_required for a bearer token', async () => {
      const c = api.client();
      await signUp(c);
      const w = await createWorkspace(c);
      const token = (await c.post(`/v1/workspaces/${w.id}/tokens`, { name: 'ci' })).body.token;
      const res = await c.withBearer(token).post('/v1/workspaces', { name: 'By token' });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('session_required');
    });

    it('answers 401 unauthorized without a session', async () => {
      const res = await api.client().post('/v1/workspaces', { name: 'x' });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    });

    it('validates the name (1 to 64 characters) and rejects unknown fields', async () => {
      const c = api.client();
      await signUp(c);
      for (const body of [{}, { name: '' }, { name: 'x'.repeat(65) }, { name: 'ok', plan: 'pro' }]) {
        const res = await c.post('/v1/workspaces', body);
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('validation_failed');
        expect(res.body.error.details.length).toBeGreaterThan(0);
      }
      expect((await c.post('/v1/workspaces', { name: 'ok', plan: 'pro' })).body.error.details).toEqual([{ field: '/plan', message: 'is not allowed' }]);
    });

    it('places the workspace on the online node with the most free capacity', async () => {
      const big = await insertNode(api.db, { memoryMb: 1_000_000 });
      await insertNode(api.db, { memoryMb: 2_000_000, status: 'offline' });
      const c = api.client();
      await signUp(c);
      const w = await createWorkspace(c);
      expect((await api.db.workspace.findUniqueOrThrow({ where: { id: w.id } })).nodeId).toBe(big.id);
      await api.db.node.update({ where: { id: big.id }, data: { status: 'offline' } });
    });

    it('answers 503 node_unavailable when no node is online', async () => {
      const c = api.client();
      await signUp(c);
      await api.db.node.updateMany({ data: { status: 'offline' } });
      try {
        const res = await c.post('/v1/workspaces', { name: 'Nowhere' });
        expect(res.status).toBe(503);
        expect(res.body.error.code).toBe('node_unavailable');
      } finally {
        await api.db.node.update({ where: { id: api.node.id }, data: { status: 'online' } });
      }
    });
  });

  describe('GET /v1/workspaces', () => {
    it("lists the caller's workspaces, oldest first, with the caller's role; a token sees its one workspace", async () => {
      const c = api.client();
      await signUp(c);
      const one = await createWorkspace(c, 'One');
      const two = await createWorkspace(c, 'Two');
      const other = api.client();
      await signUp(other);
      const theirs = await createWorkspace(other, 'Theirs');
      await other.post(`/v1/workspaces/${theirs.id}/members`, { email: (await c.get('/v1/auth/me')).body.user.email, role: 'viewer' });

      const list = await c.get('/v1/workspaces');
      expect(list.status).toBe(200);
      expect(list.body.data.map((w: { id: string; role: string }) => [w.id, w.role])).toEqual([
        [one.id, 'owner'],
        [two.id, 'owner'],
        [theirs.id, 'viewer'],
      ]);
      const token = (await c.post(`/v1/workspaces/${two.id}/tokens`, { name: 't' })).body.token;
      expect((await c.withBearer(token).get('/v1/workspaces')).body.data.map((w: { id: string }) => w.id)).toEqual([two.id]);
    });

    it('answers 401 without a credential', async () => {
      expect((await api.client().get('/v1/workspaces')).status).toBe(401);
    });
  });

  describe('GET, PATCH, DELETE /v1/workspaces/{id}', () => {
    it('reads the workspace', async () => {
      const c = api.client();
      await signUp(c);
      const w = await createWorkspace(c, 'Readable');
      const res = await c.get(`/v1/workspaces/${w.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(w);
    });

    it("answers 404 not_found for another user's workspace, for every operation, exactly as for a missing one", async () => {
      const owner = api.client();
      await signUp(owner);
      const w = await createWorkspace(owner);
      const stranger = api.client();
      await signUp(stranger);
      const missing = '01936f3e-8a2b-7c4d-9e0f-123456789abc';
      for (const id of [w.id, missing]) {
        const answers = await Promise.all([
          stranger.get(`/v1/workspaces/${id}`),
          stranger.patch(`/v1/workspaces/${id}`, { name: 'mine now' }),
          stranger.delete(`/v1/workspaces/${id}`),
          stranger.get(`/v1/workspaces/${id}/plan`),
          stranger.get(`/v1/workspaces/${id}/members`),
          stranger.post(`/v1/workspaces/${id}/members`, { email: 'x@example.test', role: 'owner' }),
          stranger.get(`/v1/workspaces/${id}/tokens`),
          stranger.post(`/v1/workspaces/${id}/tokens`, { name: 'steal' }),
        ]);
        for (const res of answers) {
          expect(res.status).toBe(404);
          expect(res.body).toEqual({ error: { code: 'not_found', message: 'The workspace was not found' } });
        }
      }
      expect((await owner.get(`/v1/workspaces/${w.id}`)).body.name).toBe(w.name);
    });

    it('answers 404 for a malformed id', async () => {
      const c = api.client();
      await signUp(c);
      const res = await c.get('/v1/workspaces/not-a-uuid');
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    });

    it('renames and changes the slug (owner, admin); a taken slug is 409 name_taken; a bad slug is 400', async () => {
      const c = api.client();
      await signUp(c);
      const w = await createWorkspace(c, 'Before');
      const other = await createWorkspace(c, 'Other');
      const renamed = await c.patch(`/v1/workspaces/${w.id}`, { name: 'After', slug: `after-${w.id.slice(-6)}` });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toMatchObject({ id: w.id, name: 'After', slug: `after-${w.id.slice(-6)}`, role: 'owner' });
      const taken = await c.patch(`/v1/workspaces/${w.id}`, { slug: other.slug });
      expect(taken.status).toBe(409);
      expect(taken.body.error.code).toBe('name_taken');
      const bad = await c.patch(`/v1/workspaces/${w.id}`, { slug: 'Not A Label-' });
      expect(bad.status).toBe(400);
      expect(bad.body.error.details).toEqual([{ field: '/slug', message: expect.stringMatching(/DNS label/) }]);
      const admin = await member(c, w.id, 'admin');
      expect((await admin.patch(`/v1/workspaces/${w.id}`, { name: 'By admin' })).status).toBe(200);
    });

    it('answers 403 forbidden when a viewer or a developer tries to change it', async () => {
      const c = api.client();
      await signUp(c);
      const w = await createWorkspace(c);
      const members: Record<string, ApiClient> = {};
      for (const role of ['viewer', 'developer']) {
        const m = (members[role] = await member(c, w.id, role));
        expect((await m.get(`/v1/workspaces/${w.id}`)).body.role).toBe(role);
        const res = await m.patch(`/v1/workspaces/${w.id}`, { name: 'Hijacked' });
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe('forbidden');
      }
      // A viewer is read-only everywhere, so it cannot mint tokens either.
      expect((await members.viewer!.post(`/v1/workspaces/${w.id}/tokens`, { name: 'x' })).body.error.code).toBe('forbidden');
      expect((await c.get(`/v1/workspaces/${w.id}`)).body.name).toBe(w.name);
    });

    it('lets only owners delete: an admin gets 403 owner_required', async () => {
      const c = api.client();
      await signUp(c);
      const w = await createWorkspace(c);
      const admin = await member(c, w.id, 'admin');
      const res = await admin.delete(`/v1/workspaces/${w.id}`);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('owner_required');
      const developer = await member(c, w.id, 'developer');
      expect((await developer.delete(`/v1/workspaces/${w.id}`)).body.error.code).toBe('owner_required');
      expect((await c.get(`/v1/workspaces/${w.id}`)).status).toBe(200);
    });

    it('deletes at once and queues the teardown with the operation row as job id', async () => {
      const c = api.client();
      await signUp(c);
      const w = await createWorkspace(c);
      const token = (await c.post(`/v1/workspaces/${w.id}/tokens`, { name: 'ci' })).body.token;
      const res = await c.delete(`/v1/workspaces/${w.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ok: true });
      expect((await c.get(`/v1/workspaces/${w.id}`)).status).toBe(404);
      expect((await c.get('/v1/workspaces')).body.data.map((x: { id: string }) => x.id)).not.toContain(w.id);
      expect((await c.delete(`/v1/workspaces/${w.id}`)).status).toBe(404);
      expect((await c.withBearer(token).get(`/v1/workspaces/${w.id}`)).status).toBe(401);

      // The job carries the operation id alone (jobId = the row's id); the workspace is read from the row.
      const op = await api.db.operation.findFirstOrThrow({ where: { workspaceId: w.id, kind: WORKSPACE_TEARDOWN_JOB } });
      expect(op).toMatchObject({ workspaceId: w.id, kind: 'workspace.teardown', status: 'queued' });
      const job = api.jobs.jobs.find((j) => j.options.jobId === op.id)!;
      expect(job.name).toBe(WORKSPACE_TEARDOWN_JOB);
      expect(job.payload).toEqual({ operationId: op.id });
      const row = await api.db.workspace.findUniqueOrThrow({ where: { id: w.id } });
      expect(row.deletedAt).not.toBeNull();
    });
  });
});
