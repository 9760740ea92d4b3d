import { createWorkspace, signUp, uniqueEmail, type ApiClient } from '@slipway/testing';
import { startTestApi, type TestApi } from '@slipway/testing/api';

describe('members and roles (real PostgreSQL, through HTTP)', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  async function ownerWithWorkspace(extraMembers = 0) {
    const owner = api.client();
    const me = await signUp(owner);
    const w = await createWorkspace(owner);
    if (extraMembers) await api.db.workspace.update({ where: { id: w.id }, data: { extraMembers } });
    return { owner, me, w };
  }

  async function join(owner: ApiClient, workspaceId: string, role: string) {
    const c = api.client();
    const s = await signUp(c);
    const res = await owner.post(`/v1/workspaces/${workspaceId}/members`, { email: s.email, role });
    expect(res.status).toBe(201);
    return { client: c, user: s.user, email: s.email };
  }

  it('adds an existing user by email, lists members oldest first, changes a role and removes a member', async () => {
    const { owner, me, w } = await ownerWithWorkspace();
    const other = api.client();
    const { user, email } = await signUp(other);
    const added = await owner.post(`/v1/workspaces/${w.id}/members`, { email: email.toUpperCase(), role: 'developer' });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ userId: user.id, email, name: user.name, role: 'developer', createdAt: expect.any(String) });

    const list = await owner.get(`/v1/workspaces/${w.id}/members`);
    expect(list.status).toBe(200);
    expect(list.body.data.map((m: { userId: string; role: string }) => [m.userId, m.role])).toEqual([
      [me.user.id, 'owner'],
      [user.id, 'developer'],
    ]);
    expect((await other.get(`/v1/workspaces/${w.id}/members`)).body.data).toHaveLength(2);

    const changed = await owner.patch(`/v1/workspaces/${w.id}/members/${user.id}`, { role: 'admin' });
    expect(changed.status).toBe(200);
    expect(changed.body.role).toBe('admin');
    expect((await other.get(`/v1/workspaces/${w.id}`)).body.role).toBe('admin');

    const removed = await owner.delete(`/v1/workspaces/${w.id}/members/${user.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ ok: true });
    expect((await other.get(`/v1/workspaces/${w.id}`)).status).toBe(404);
    expect((await owner.delete(`/v1/workspaces/${w.id}/members/${user.id}`)).status).toBe(404);
    expect((await owner.patch(`/v1/workspaces/${w.id}/members/${user.id}`, { role: 'viewer' })).status).toBe(404);
  });

  it('answers 404 for an unknown email and 409 already_member for a member', async () => {
    const { owner, me, w } = await ownerWithWorkspace();
    const unknown = await owner.post(`/v1/workspaces/${w.id}/members`, { email: uniqueEmail(), role: 'viewer' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
    const again = await owner.post(`/v1/workspaces/${w.id}/members`, { email: me.email, role: 'viewer' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('already_member');
  });

  it('validates the role', async () => {
    const { owner, w } = await ownerWithWorkspace();
    const res = await owner.post(`/v1/workspaces/${w.id}/members`, { email: 'a@b.test', role: 'superuser' });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: '/role', message: 'must be equal to one of the allowed values' }]);
  });

  it('answers 402 quota_exceeded with details past maxMembers (trial: 3), and counts extras', async () => {
    const { owner, w } = await ownerWithWorkspace();
    await join(owner, w.id, 'viewer');
    await join(owner, w.id, 'viewer');
    const { email } = await signUp(api.client());
    const res = await owner.post(`/v1/workspaces/${w.id}/members`, { email, role: 'viewer' });
    expect(res.status).toBe(402);
    expect(res.body.error).toEqual({
      code: 'quota_exceeded',
      message: expect.any(String),
      details: [{ resource: 'members', requested: 1, available: 0 }],
    });
    await api.db.workspace.update({ where: { id: w.id }, data: { extraMembers: 1 } });
    expect((await owner.post(`/v1/workspaces/${w.id}/members`, { email, role: 'viewer' })).status).toBe(201);
    const plan = await owner.get(`/v1/workspaces/${w.id}/plan`);
    expect(plan.body.limits.maxMembers).toBe(4);
    expect(plan.body.usage.members).toBe(4);
    expect(plan.body.hasExtras).toBe(true);
  });

  it('never passes maxMembers under 20 concurrent additions', async () => {
    const { owner, w } = await ownerWithWorkspace(7); // 3 + 7 = 10 seats, 1 taken by the owner
    const candidates = await Promise.all(Array.from({ length: 20 }, () => signUp(api.client())));
    const answers = await Promise.all(candidates.map((c) => owner.post(`/v1/workspaces/${w.id}/members`, { email: c.email, role: 'viewer' })));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(9);
    expect(statuses.filter((s) => s === 402)).toHaveLength(11);
    for (const a of answers.filter((x) => x.status === 402)) {
      expect(a.body.error.code).toBe('quota_exceeded');
      expect(a.body.error.details).toEqual([{ resource: 'members', requested: 1, available: 0 }]);
    }
    expect(await api.db.membership.count({ where: { workspaceId: w.id } })).toBe(10);
  });

  it('lets admins manage non-owners, and only owners add, change or remove owners (403 owner_required)', async () => {
    const { owner, me, w } = await ownerWithWorkspace(5);
    const admin = await join(owner, w.id, 'admin');
    const dev = await join(admin.client, w.id, 'developer');
    expect((await admin.client.patch(`/v1/workspaces/${w.id}/members/${dev.user.id}`, { role: 'viewer' })).status).toBe(200);

    const { email } = await signUp(api.client());
    const addOwner = await admin.client.post(`/v1/workspaces/${w.id}/members`, { email, role: 'owner' });
    expect(addOwner.status).toBe(403);
    expect(addOwner.body.error.code).toBe('owner_required');
    const promote = await admin.client.patch(`/v1/workspaces/${w.id}/members/${dev.user.id}`, { role: 'owner' });
    expect(promote.body.error.code).toBe('owner_required');
    const demoteOwner = await admin.client.patch(`/v1/workspaces/${w.id}/members/${me.user.id}`, { role: 'viewer' });
    expect(demoteOwner.body.error.code).toBe('owner_required');
    const removeOwner = await admin.client.delete(`/v1/workspaces/${w.id}/members/${me.user.id}`);
    expect(removeOwner.status).toBe(403);
    expect(removeOwner.body.error.code).toBe('owner_required');

    // The owner may make another owner, and then step down.
    expect((await owner.patch(`/v1/workspaces/${w.id}/members/${admin.user.id}`, { role: 'owner' })).status).toBe(200);
    expect((await owner.patch(`/v1/workspaces/${w.id}/members/${me.user.id}`, { role: 'admin' })).status).toBe(200);
  });

  it('answers 409 last_owner when the last owner would be demoted or removed', async () => {
    const { owner, me, w } = await ownerWithWorkspace();
    const demote = await owner.patch(`/v1/workspaces/${w.id}/members/${me.user.id}`, { role: 'admin' });
    expect(demote.status).toBe(409);
    expect(demote.body.error.code).toBe('last_owner');
    const remove = await owner.delete(`/v1/workspaces/${w.id}/members/${me.user.id}`);
    expect(remove.status).toBe(409);
    expect(remove.body.error.code).toBe('last_owner');
  });

  it('answers 403 forbidden when a developer or viewer manages members; both can read them', async () => {
    const { owner, me, w } = await ownerWithWorkspace(2);
    const dev = await join(owner, w.id, 'developer');
    const viewer = await join(owner, w.id, 'viewer');
    for (const m of [dev, viewer]) {
      expect((await m.client.get(`/v1/workspaces/${w.id}/members`)).status).toBe(200);
      const add = await m.client.post(`/v1/workspaces/${w.id}/members`, { email: me.email, role: 'viewer' });
      expect(add.status).toBe(403);
      expect(add.body.error.code).toBe('forbidden');
      expect((await m.client.patch(`/v1/workspaces/${w.id}/members/${m.user.id}`, { role: 'admin' })).body.error.code).toBe('forbidden');
      expect((await m.client.delete(`/v1/workspaces/${w.id}/members/${me.user.id}`)).body.error.code).toBe('forbidden');
    }
  });

  it("revokes a removed member's tokens in the workspace", async () => {
    const { owner, w } = await ownerWithWorkspace();
    const dev = await join(owner, w.id, 'developer');
    const token = (await dev.client.post(`/v1/workspaces/${w.id}/tokens`, { name: 'dev ci' })).body.token;
    expect((await dev.client.withBearer(token).get(`/v1/workspaces/${w.id}`)).status).toBe(200);
    await owner.delete(`/v1/workspaces/${w.id}/members/${dev.user.id}`);
    expect((await dev.client.withBearer(token).get(`/v1/workspaces/${w.id}`)).status).toBe(401);
    // Joining again does not bring the old token back.
    await owner.post(`/v1/workspaces/${w.id}/members`, { email: dev.email, role: 'developer' });
    expect((await dev.client.withBearer(token).get(`/v1/workspaces/${w.id}`)).status).toBe(401);
  });

  it('answers 404 for a member id that is not a UUID', async () => {
    const { owner, w } = await ownerWithWorkspace();
    const res = await owner.patch(`/v1/workspaces/${w.id}/members/nope`, { role: 'viewer' });
    expect(res.status).toBe(404);
    expect(res.body.error.message).toBe('The user was not found');
  });
});
