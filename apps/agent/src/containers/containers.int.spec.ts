// Managed containers over the Agent service: listing and removal by label, exit events, logs (real Docker).
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { LABELS, type ContainerExitEvent } from '@slipway/core';
import type { CertificateAuthority } from '@slipway/pki';
import { AgentConnection } from '@slipway/proto';
import { TEST_SERVICES } from '@slipway/testing';
import Docker from 'dockerode';
import { ensureTestImage, openTestCa, startTestAgent, TEST_IMAGE, type TestAgent } from '@slipway/testing/agent';

jest.setTimeout(60_000);

describe('managed containers over gRPC (real Docker)', () => {
  /** A managed container of this platform that exits 143 on SIGTERM (a shell trapping it, as an app would). */
  const sleeper = async (name: string) => {
    const c = await docker.createContainer({
      Image: TEST_IMAGE,
      Cmd: ['/bin/busybox', 'sh', '-c', 'trap "exit 143" TERM; while :; do /bin/busybox usleep 100000; done'],
      Labels: { [LABELS.platform]: t.agent.platformId, [LABELS.workspace]: workspaceId, [LABELS.app]: name },
    });
    await c.start();
    return c;
  };
  /** The first event of each action for the container, once all have come. */
  const eventsIn = async <E extends ContainerExitEvent>(events: E[], id: string, actions: string[]): Promise<E[]> => {
    const first = (a: string) => events.find((e) => e.containerId === id && e.action === a);
    await waitFor(() => actions.every((a) => first(a) !== undefined));
    return actions.map((a) => first(a)!);
  };
  let ca: CertificateAuthority;
  let caDir: string;
  let t: TestAgent;
  let conn: AgentConnection;
  const docker = new Docker({ socketPath: TEST_SERVICES.dockerSocket });
  const workspaceId = randomUUID();

  beforeAll(async () => {
    ({ ca, dir: caDir } = await openTestCa());
    t = await startTestAgent(ca, { nodeName: 'containers-spec' });
    conn = new AgentConnection(t.target, ca.client);
  });

  afterAll(async () => {
    conn.close();
    // This test's workspace id is its own: what carries it (this platform's and the "other platform's") goes.
    const left = await docker.listContainers({ all: true, filters: { label: [`${LABELS.workspace}=${workspaceId}`] } });
    await Promise.all(left.map((c) => docker.getContainer(c.Id).remove({ force: true })));
    await docker.listContainers({ all: true, filters: { label: ['slipway-test-unmanaged'] } }).then((l) => Promise.all(l.map((c) => docker.getContainer(c.Id).remove({ force: true }))));
    await t.stop();
    await rm(caDir, { recursive: true, force: true });
  });

  it("lists and removes only containers carrying slipway labels and this platform's id (real Docker)", async () => {
    await ensureTestImage(docker);
    const appId = randomUUID();
    const mine = { [LABELS.platform]: t.agent.platformId, [LABELS.workspace]: workspaceId };
    const managed = await docker.createContainer({ Image: TEST_IMAGE, Labels: { ...mine, [LABELS.app]: appId } });
    const other = await docker.createContainer({ Image: TEST_IMAGE, Labels: mine });
    const unmanaged = await docker.createContainer({ Image: TEST_IMAGE, Labels: { 'slipway-test-unmanaged': '1' } });
    // Another platform's container on the same engine, even in a workspace of the same id, is neither listed nor removed.
    const foreign = await docker.createContainer({ Image: TEST_IMAGE, Labels: { [LABELS.platform]: 'another-platform', [LABELS.workspace]: workspaceId } });

    const byWorkspace = await conn.listManagedContainers({ workspaceId });
    expect(byWorkspace.map((c) => c.id).sort()).toEqual([managed.id, other.id].sort());
    const byApp = await conn.listManagedContainers({ appId });
    expect(byApp).toHaveLength(1);
    expect(byApp[0]).toMatchObject({ id: managed.id, image: TEST_IMAGE, state: 'created', labels: { [LABELS.app]: appId } });

    const opId = randomUUID();
    const removed = await conn.removeManagedContainers({ operationId: opId, containerIds: [managed.id, unmanaged.id, foreign.id, 'f'.repeat(64)] });
    expect(removed.removed).toEqual([managed.id]);
    expect(removed.skipped.sort()).toEqual([unmanaged.id, foreign.id, 'f'.repeat(64)].sort());
    expect((await unmanaged.inspect()).Id).toBe(unmanaged.id);
    expect((await foreign.inspect()).Id).toBe(foreign.id);
    const replay = await conn.removeManagedContainers({ operationId: opId, containerIds: [managed.id] });
    expect(replay.removed).toEqual([managed.id]);
    expect((await conn.listManagedContainers({ workspaceId })).map((c) => c.id)).toEqual([other.id]);
  });

  it('reports container exits on a stream, and streams container logs', async () => {
    await ensureTestImage(docker);
    const events: ContainerExitEvent[] = [];
    const sub = conn.watchContainerEvents((e) => events.push(e), () => undefined);
    await new Promise((r) => setTimeout(r, 300));
    const c = await docker.createContainer({
      Image: TEST_IMAGE,
      Cmd: ['/bin/busybox', 'sh', '-c', 'echo hello from slipway; exit 3'],
      Labels: { [LABELS.platform]: t.agent.platformId, [LABELS.workspace]: workspaceId, [LABELS.app]: 'exit-test' },
    });
    await c.start();
    await waitFor(() => events.some((e) => e.containerId === c.id));
    sub.stop();
    const exit = events.find((e) => e.containerId === c.id)!;
    expect(exit).toMatchObject({ action: 'die', exitCode: 3, labels: { [LABELS.workspace]: workspaceId, [LABELS.app]: 'exit-test' } });

    const chunks: Buffer[] = [];
    const call = conn.agent.tailContainerLogs({ containerId: c.id, tail: 0, follow: false });
    await new Promise<void>((resolve, reject) => {
      call.on('data', (d: { stream: string; data: Buffer }) => chunks.push(d.data));
      call.on('end', resolve);
      call.on('error', reject);
    });
    expect(Buffer.concat(chunks).toString()).toBe('hello from slipway\n');
  });

  it('reports docker stop, kill and rm -f behind the platform’s back as external, with what happened, and its own removal as the platform’s', async () => {
    await ensureTestImage(docker);
    const events: (ContainerExitEvent & { receivedAtMs: number })[] = [];
    const exitsOnly: ContainerExitEvent[] = [];
    const sub = conn.watchContainerEvents((e) => events.push({ ...e, receivedAtMs: Date.now() }), () => undefined, undefined, { lifecycle: true });
    const old = conn.watchContainerEvents((e) => exitsOnly.push(e), () => undefined);
    await new Promise((r) => setTimeout(r, 300));
    const start = (name: string) => sleeper(name);
    const eventsOf = (id: string, actions: string[]) => eventsIn(events, id, actions);

    const stopped = await start('stopped');
    await stopped.stop({ t: 10 });
    const [stopDie] = await eventsOf(stopped.id, ['die']);
    expect(stopDie).toMatchObject({ exitCode: 143, cause: 'external', signal: 15, oomKilled: false, reason: expect.stringContaining('docker stop') });

    const killed = await start('killed');
    await killed.kill();
    const [killDie] = await eventsOf(killed.id, ['die']);
    expect(killDie).toMatchObject({ exitCode: 137, cause: 'external', signal: 9 });

    const removed = await start('removed');
    await removed.remove({ force: true });
    const [rmDie, rmDestroy] = await eventsOf(removed.id, ['die', 'destroy']);
    expect(rmDie).toMatchObject({ cause: 'external', signal: 9 });
    expect(rmDestroy).toMatchObject({ action: 'destroy', cause: 'external', labels: { [LABELS.app]: 'removed' } });

    // The agent's own removal (the control plane asked for it) is the platform's.
    const mine = await start('mine');
    await conn.removeManagedContainers({ operationId: randomUUID(), containerIds: [mine.id] });
    const [mineDie, mineDestroy] = await eventsOf(mine.id, ['die', 'destroy']);
    expect(mineDie).toMatchObject({ cause: 'platform' });
    expect(mineDestroy).toMatchObject({ cause: 'platform' });

    // Each reached the control plane well within a second of the engine's own time for it.
    for (const e of [stopDie!, killDie!, rmDie!, rmDestroy!]) expect(e.receivedAtMs - e.atMs).toBeLessThan(1_000);
    // A stream that did not ask for lifecycle events gets the exits only, as before.
    await waitFor(() => exitsOnly.filter((e) => [stopped.id, killed.id, removed.id, mine.id].includes(e.containerId)).length === 4);
    expect(new Set(exitsOnly.map((e) => e.action))).toEqual(new Set(['die']));
    sub.stop();
    old.stop();
  });
});

async function waitFor(cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}
