// The way back after losing a server (issue 33 item 3): a database on server A is backed up to an S3-compatible
// destination (s3rver on the fleet's bridge address, where every server reaches it); A's agent stops (the server is
// lost); the workspace is moved to server B — by a row update here, standing in for issue 32's moves —; the backup
// restored into a new database lands on B, whose agent never held the database nor any file of it: it downloads and
// opens the sealed object, and the rows are there.
import { randomUUID } from 'node:crypto';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { queryInContainer } from '@slipway/testing/databases';
import { FLEET_HOST_ADDRESS, startTestFleet, type TestFleet } from '@slipway/testing/fleet';
import { S3RVER_ACCESS_KEY_ID, startTestS3, type TestS3 } from '@slipway/testing/s3';
import { waitFor } from '@slipway/testing/worker';

jest.setTimeout(900_000);

describe('restore from a destination on a server that never held the database', () => {
  let fleet: TestFleet;
  let s3: TestS3;
  let client: ApiClient;
  const SECRET = `secret-${randomUUID()}`;

  beforeAll(async () => {
    // The fleet first: its bridge brings the address s3rver listens on.
    fleet = await startTestFleet({ servers: 2, name: 'fleet-offsite', images: ['slipway/redis:7.0'] });
    s3 = await startTestS3({ buckets: ['backups'], host: FLEET_HOST_ADDRESS, credentials: { [S3RVER_ACCESS_KEY_ID]: SECRET } });
    client = fleet.client();
    await signUp(client);
  });

  afterAll(async () => {
    await fleet?.close();
    await s3?.close();
  });

  /** Polls `read` until `done` holds for its value. */
  const until = <T>(read: () => Promise<T>, done: (v: T) => boolean, ms: number, what: string) =>
    waitFor(async () => {
      const v = await read().catch(() => null);
      return v !== null && done(v) ? { v } : null;
    }, ms, what).then((x) => x.v);

  const settledBackup = (x: { status: string }) => ['completed', 'failed'].includes(x.status);
  const settledDatabase = (d: { status: string; statusMessage: string | null }) => ['running', 'failed'].includes(d.status);

  it('backs up on A, loses A, restores on B from the object alone', async () => {
    const [a, b] = [fleet.servers[0]!, fleet.servers[1]!];
    // A workspace on A: B cordoned while it is placed.
    await fleet.admin('cordon', b.name);
    const ws = await createWorkspace(client);
    await fleet.admin('uncordon', b.name);
    expect((await fleet.db.workspace.findUniqueOrThrow({ where: { id: ws.id }, select: { nodeId: true } })).nodeId).toBe(a.nodeId);
    const base = `/v1/workspaces/${ws.id}`;
    const dest = await client.post(`${base}/backup-destinations`, {
      name: 'offsite', endpoint: s3.endpoint, region: 'us-east-1', bucket: 'backups', pathStyle: true, accessKeyId: S3RVER_ACCESS_KEY_ID,
      secretKey: SECRET, isDefault: true,
    });
    expect(dest.status).toBe(201);

    const db = (await client.post(`${base}/databases`, { name: 'cache', engine: 'redis', memoryMb: 64 })).body;
    await until(() => client.get(`${base}/databases/${db.id}`).then((r) => r.body), (d) => d.status === 'running', 180_000, 'the database on A');
    const conn = (await client.get(`${base}/databases/${db.id}/connection`)).body;
    const mark = `row-${randomUUID().slice(0, 8)}`;
    await queryInContainer(a.docker, db.id, 'redis', conn, `RPUSH t a ${mark}`);

    const made = (await client.post(`${base}/databases/${db.id}/backups`, {})).body;
    const backup = await until(() => client.get(`${base}/databases/${db.id}/backups/${made.id}`).then((r) => r.body), settledBackup, 180_000, 'the backup');
    expect(backup).toMatchObject({ status: 'completed', localCopy: false, offsite: { key: expect.any(String) } });

    // A is lost; the workspace now lives on B.
    await a.stopAgent();
    await fleet.db.workspace.update({ where: { id: ws.id }, data: { nodeId: b.nodeId } });

    const restored = await client.post(`${base}/databases/${db.id}/backups/${made.id}/restore`, { target: 'new' });
    expect(restored.status).toBe(202);
    const fresh = restored.body.databaseId as string;
    // The new database runs first (empty), then the restore job loads the backup into it.
    await until(() => client.get(`${base}/databases/${fresh}`).then((r) => r.body), settledDatabase, 300_000, 'the new database on B');
    const freshConn = (await client.get(`${base}/databases/${fresh}/connection`)).body;
    const rows = await until(() => queryInContainer(b.docker, fresh, 'redis', freshConn, 'LRANGE t 0 -1'), (v) => v !== '', 300_000, 'the restored rows on B');
    expect(rows).toBe(['a', mark].sort().join(','));
    const after = await until(() => client.get(`${base}/databases/${fresh}`).then((r) => r.body), settledDatabase, 120_000, 'the restored database on B');
    expect({ status: after.status, statusMessage: after.statusMessage }).toEqual({ status: 'running', statusMessage: null });
    expect((await fleet.db.database.findUniqueOrThrow({ where: { id: fresh }, select: { nodeId: true } })).nodeId).toBe(b.nodeId);
  });
});
