import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { startTestApi, type TestApi } from '@slipway/testing/api';

// Following a deployment's log (issue 28): `wait` holds the answer until a line comes, answers an empty chunk when
// none came in time, and answers at once when there is something to read or the deployment is finished.
describe('GET …/deployments/{id}/logs?wait= (long polling)', () => {
  let api: TestApi;
  let client: ApiClient;
  let logsPath: string;
  let deploymentId: string;

  beforeAll(async () => {
    api = await startTestApi();
    client = api.client();
    await signUp(client);
    const ws = await createWorkspace(client);
    const app = await client.post(`/v1/workspaces/${ws.id}/apps`, { name: 'followed', kind: 'web', source: 'image', image: 'nginx:1', memoryMb: 128 });
    expect(app.status).toBe(201);
    const d = await client.post(`/v1/workspaces/${ws.id}/apps/${app.body.id}/deployments`, {});
    expect(d.status).toBe(201);
    deploymentId = d.body.id;
    logsPath = `/v1/workspaces/${ws.id}/apps/${app.body.id}/deployments/${deploymentId}/logs`;
  });

  afterAll(async () => {
    await api?.close();
  });

  const append = (seq: number, text: string) => api.db.deploymentLogLine.create({ data: { deploymentId, seq, phase: 'build', text } });

  it('waits for the next line and answers as soon as it is written', async () => {
    const started = Date.now();
    const answer = client.get(`${logsPath}?after=0&wait=10`);
    // then(): a Prisma query runs only when awaited or then'd.
    setTimeout(() => void append(1, 'Step 1/3 : FROM slipway/node:24').then(() => undefined), 1_000);
    const res = await answer;
    const took = Date.now() - started;
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ data: [{ seq: 1, text: 'Step 1/3 : FROM slipway/node:24' }], nextAfter: 1, done: false });
    expect(took).toBeGreaterThanOrEqual(900);
    expect(took).toBeLessThan(8_000);
  });

  it('answers an empty chunk when no line came within the wait, and at once when lines are there', async () => {
    const empty = await client.get(`${logsPath}?after=1&wait=1`);
    expect(empty.body).toEqual({ data: [], nextAfter: 1, done: false, truncated: false });
    await append(2, 'Step 2/3');
    const started = Date.now();
    const now = await client.get(`${logsPath}?after=1&wait=20`);
    expect(now.body.data.map((l: { text: string }) => l.text)).toEqual(['Step 2/3']);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('does not wait on a finished deployment, and refuses a wait over 25 s', async () => {
    await api.db.deployment.update({ where: { id: deploymentId }, data: { status: 'failed', finishedAt: new Date(), failureReason: 'test' } });
    const started = Date.now();
    const done = await client.get(`${logsPath}?after=2&wait=20`);
    expect(done.body).toEqual({ data: [], nextAfter: 2, done: true, truncated: false });
    expect(Date.now() - started).toBeLessThan(5_000);
    const tooLong = await client.get(`${logsPath}?wait=26`);
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.code).toBe('validation_failed');
  });
});
