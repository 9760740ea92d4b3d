// Subdomains are unique platform-wide by construction (the database's unique index decides): an app's create or
// rename never fails because of another workspace's app, and error messages say only what is true.
import { randomBytes } from 'node:crypto';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { startTestApi, type TestApi } from '@slipway/testing/api';

describe('app subdomains across workspaces (real PostgreSQL)', () => {
  let api: TestApi;
  let alice: ApiClient;
  let bob: ApiClient;
  const r = randomBytes(3).toString('hex');

  beforeAll(async () => {
    api = await startTestApi();
    alice = api.client();
    bob = api.client();
    await signUp(alice);
    await signUp(bob);
  });
  afterAll(() => api.close());

  const workspaceWithSlug = async (client: ApiClient, slug: string) => {
    const ws = await createWorkspace(client);
    const res = await client.patch(`/v1/workspaces/${ws.id}`, { slug });
    expect(res.status).toBe(200);
    return ws;
  };
  const web = (client: ApiClient, workspaceId: string, name: string) =>
    client.post(`/v1/workspaces/${workspaceId}/apps`, { name, kind: 'web', source: 'image', image: 'nginx:1', memoryMb: 128 });

  it('gives the second of two apps wanting one subdomain a distinct one, says so in its url, and never blames the other workspace', async () => {
    // App `pp` in workspace `q…-t…` and app `pp-q…` in workspace `t…` both want `pp-q…-t…`.
    const first = await workspaceWithSlug(alice, `q${r}-t${r}`);
    const second = await workspaceWithSlug(bob, `t${r}`);
    const natural = `pp-q${r}-t${r}`;

    const a = await web(alice, first.id, 'pp');
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({ subdomain: natural, url: `http://${natural}.apps.localhost` });

    const b = await web(bob, second.id, `pp-q${r}`);
    expect(b.status).toBe(201);
    expect(b.body.subdomain).not.toBe(natural);
    expect(b.body.subdomain).toMatch(new RegExp(`^pp-q${r}-t${r}-[a-z0-9]{6}$`));
    expect(b.body.url).toBe(`http://${b.body.subdomain}.apps.localhost`);

    // A name taken in the workspace itself is still refused, with a message that is true.
    const again = await web(bob, second.id, `pp-q${r}`);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'name_taken', message: `An app named "pp-q${r}" already exists in this workspace` });

    // A rename onto another workspace's subdomain succeeds too, with a distinct one.
    const held = await web(alice, first.id, 'pp-x');
    expect(held.body.subdomain).toBe(`pp-x-q${r}-t${r}`);
    const c = await web(bob, second.id, 'other');
    expect(c.status).toBe(201);
    const renamed = await bob.patch(`/v1/workspaces/${second.id}/apps/${c.body.id}`, { name: `pp-x-q${r}` });
    expect(renamed.status).toBe(200);
    expect(renamed.body.subdomain).toMatch(new RegExp(`^pp-x-q${r}-t${r}-[a-z0-9]{6}$`));
    expect(renamed.body.url).toBe(`http://${renamed.body.subdomain}.apps.localhost`);

    // The database holds every subdomain once, whatever the code does.
    const rows = await api.db.app.findMany({ where: { subdomain: { startsWith: 'pp-' } }, select: { subdomain: true } });
    expect(new Set(rows.map((x) => x.subdomain)).size).toBe(rows.length);
    await expect(api.db.app.update({ where: { id: b.body.id }, data: { subdomain: natural } })).rejects.toThrow();
    await expect(api.db.app.update({ where: { id: b.body.id }, data: { subdomain: 'Not A Label' } })).rejects.toThrow();
  });
});
