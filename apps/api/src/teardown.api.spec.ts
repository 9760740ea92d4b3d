import { randomUUID } from 'node:crypto';
import { systemClock, WORKSPACE_TEARDOWN_JOB, WorkspaceTeardownService, type AgentGateway } from '@slipway/core';
import { createJobStores, PrismaOperationStore } from '@slipway/db';
import { createWorkspace, signUp } from '@slipway/testing';
import { startTestApi, type TestApi } from '@slipway/testing/api';

describe('workspace teardown (the workspace.teardown job, real PostgreSQL)', () => {
  let api: TestApi;
  // The teardown runs in the worker, over the job-side stores the API never composes.
  let teardown: WorkspaceTeardownService;
  const quiet = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {}, child: () => quiet };
  beforeAll(async () => {
    api = await startTestApi();
    // No server here (the end-to-end teardown on real Docker is apps/api/src/workspace-teardown.int.spec.ts).
    const agents = { removeWorkspace: async () => ({ containers: 0, images: 0, networks: 0 }) } as unknown as AgentGateway;
    teardown = new WorkspaceTeardownService({ teardown: createJobStores(api.db).teardown, agents, operations: new PrismaOperationStore(api.db), clock: systemClock, logger: quiet });
  });
  afterAll(() => api.close());

  it("removes a deleted workspace's tokens, memberships and reservations and marks its operation succeeded, once", async () => {
    const owner = api.client();
    await signUp(owner);
    const w = await createWorkspace(owner);
    const other = api.client();
    const { email } = await signUp(other);
    await owner.post(`/v1/workspaces/${w.id}/members`, { email, role: 'developer' });
    await owner.post(`/v1/workspaces/${w.id}/tokens`, { name: 'a' });
    await other.post(`/v1/workspaces/${w.id}/tokens`, { name: 'b' });
    await api.services.quota.reserve(w.id, { resourceType: 'app', resourceId: randomUUID(), cpuMillis: 100, memoryMb: 128, diskMb: 0 });
    const keep = await createWorkspace(owner, 'Kept');
    await owner.post(`/v1/workspaces/${keep.id}/tokens`, { name: 'kept' });

    expect((await owner.delete(`/v1/workspaces/${w.id}`)).status).toBe(200);
    // The job carries the operation id alone; the workspace is the operation row's.
    const row = await api.db.operation.findFirstOrThrow({ where: { workspaceId: w.id, kind: WORKSPACE_TEARDOWN_JOB } });
    const job = api.jobs.jobs.filter((j) => j.name === WORKSPACE_TEARDOWN_JOB).find((j) => j.options.jobId === row.id)!;
    expect(job.payload).toEqual({ operationId: row.id });
    const result = await teardown.run(job.options.jobId);
    expect(result).toMatchObject({ apps: 0, tokens: 2, memberships: 2, reservations: 1 });

    const where = { workspaceId: w.id };
    expect([await api.db.apiToken.count({ where }), await api.db.membership.count({ where }), await api.db.reservation.count({ where })]).toEqual([0, 0, 0]);
    const op = await api.db.operation.findUniqueOrThrow({ where: { id: job.options.jobId } });
    expect(op).toMatchObject({ status: 'succeeded', attempts: 1, error: null });
    expect(op.finishedAt).not.toBeNull();

    // A duplicate delivery does nothing and answers the same result.
    expect(await teardown.run(job.options.jobId)).toEqual(result);
    expect((await api.db.operation.findUniqueOrThrow({ where: { id: op.id } })).attempts).toBe(1);
    // Other workspaces are untouched.
    expect(await api.db.apiToken.count({ where: { workspaceId: keep.id } })).toBe(1);
    expect((await owner.get(`/v1/workspaces/${keep.id}`)).status).toBe(200);
  });

  it('never tears down a live workspace, and refuses an operation of another kind or none', async () => {
    const owner = api.client();
    await signUp(owner);
    const live = await createWorkspace(owner);
    const op = await api.db.operation.create({ data: { workspaceId: live.id, kind: WORKSPACE_TEARDOWN_JOB, payload: { workspaceId: live.id } } });
    await teardown.run(op.id);
    expect(await api.db.operation.findUniqueOrThrow({ where: { id: op.id } })).toMatchObject({ status: 'failed', error: 'The workspace is not deleted' });
    expect(await api.db.membership.count({ where: { workspaceId: live.id } })).toBe(1);
    expect((await owner.get(`/v1/workspaces/${live.id}`)).status).toBe(200);

    const otherKind = await api.db.operation.create({ data: { workspaceId: live.id, kind: 'agent.noop', payload: {} } });
    await expect(teardown.run(otherKind.id)).rejects.toMatchObject({ code: 'not_found' });
    await expect(teardown.run(randomUUID())).rejects.toMatchObject({ code: 'not_found' });
  });
});
