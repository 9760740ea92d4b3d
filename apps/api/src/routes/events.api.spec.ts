// Owners' events on apps and databases (issue 32): what a move's switch writes (`resource_events`) is listed on each
// resource, newest first, only to members of its workspace, in the documented shape.
import { randomUUID } from 'node:crypto';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { startTestApi, type TestApi } from '@slipway/testing/api';

describe('GET …/apps/{id}/events and …/databases/{id}/events (real PostgreSQL)', () => {
  let api: TestApi;
  let alice: ApiClient;
  let bob: ApiClient;

  beforeAll(async () => {
    api = await startTestApi();
    alice = api.client();
    bob = api.client();
    await signUp(alice);
    await signUp(bob);
  });
  afterAll(() => api.close());

  it('lists the events of one app and one database, newest first, to their workspace only', async () => {
    const ws = await createWorkspace(alice);
    const app = (await alice.post(`/v1/workspaces/${ws.id}/apps`, { name: 'web', kind: 'web', source: 'image', image: 'nginx:1', memoryMb: 128 })).body;
    const database = await api.db.database.create({
      data: { workspaceId: ws.id, nodeId: api.node.id, name: 'main', slug: 'main', engine: 'redis', version: '7', cpuMillis: 100, memoryMb: 64, diskMb: 256, username: 'default', databaseName: '0', passwordSealed: 'x' },
    });
    const event = (resourceKind: string, resourceId: string, message: string, at: string) =>
      api.db.resourceEvent.create({ data: { workspaceId: ws.id, resourceKind, resourceId, kind: 'moved', message, at: new Date(at) } });
    await event('app', app.id, 'Moved with its workspace from server a to server b', '2026-11-27T06:00:00.000Z');
    await event('app', app.id, 'Moved with its workspace from server b to server c', '2026-11-27T07:00:00.000Z');
    await event('database', database.id, 'Moved with its workspace from server b to server c', '2026-11-27T07:00:00.000Z');

    const appEvents = await alice.get(`/v1/workspaces/${ws.id}/apps/${app.id}/events`);
    expect(appEvents.status).toBe(200);
    expect(appEvents.body.data.map((e: { message: string; at: string; kind: string }) => `${e.kind} ${e.at} ${e.message}`)).toEqual([
      'moved 2026-11-27T07:00:00.000Z Moved with its workspace from server b to server c',
      'moved 2026-11-27T06:00:00.000Z Moved with its workspace from server a to server b',
    ]);
    const dbEvents = await alice.get(`/v1/workspaces/${ws.id}/databases/${database.id}/events`);
    expect(dbEvents.body).toEqual({ data: [{ id: expect.any(String), kind: 'moved', message: 'Moved with its workspace from server b to server c', at: '2026-11-27T07:00:00.000Z' }] });

    // Nothing for a resource that is not the workspace's, nor for someone outside it.
    expect((await alice.get(`/v1/workspaces/${ws.id}/apps/${randomUUID()}/events`)).status).toBe(404);
    expect((await bob.get(`/v1/workspaces/${ws.id}/apps/${app.id}/events`)).status).toBeGreaterThanOrEqual(403);
    expect(api.violations).toEqual([]);
  });
});
