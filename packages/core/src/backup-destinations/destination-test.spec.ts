import { grantAccess, type WorkspaceRecord } from '../auth/actor';
import type { SecretBox } from '../auth/secret-box';
import { AppError } from '../errors';
import type { AgentTarget } from '../ports/agents';
import type { BackupDestinationRecord, BackupDestinationRepository, OpenedDestination, ProbeAnswer } from './destination.ports';
import { BackupDestinationService } from './destination.service';

// Issue 33: the destination test call runs where the backups upload from — the agent of the workspace's server — and
// from the control plane only when there is no such server or its agent cannot run it, saying so.
const DESTINATION: BackupDestinationRecord = {
  id: 'dest-1', workspaceId: 'ws-1', name: 'r2', endpoint: 'https://s3.example.com', region: 'auto', bucket: 'b', prefix: 'slipway/', pathStyle: false,
  accessKeyId: 'AKID', secretKeySealed: 'sealed', isDefault: true, createdAt: new Date(), updatedAt: new Date(),
};
const OK: ProbeAnswer = { ok: true, stage: null, reason: null, message: 'A probe object was written to b/slipway/.slipway-probe-1, read back intact and deleted.', elapsedMs: 12 };
const DNS: ProbeAnswer = { ok: false, stage: 'write', reason: 'dns', message: "Writing a probe object failed. The endpoint's host name s3.example.com could not be resolved (DNS): check the endpoint's spelling.", elapsedMs: 3 };

function setup(o: { nodeId: string | null; agent?: (target: AgentTarget) => Promise<ProbeAnswer>; withServerProbe?: boolean }) {
  const calls: string[] = [];
  const opened: OpenedDestination[] = [];
  const svc = new BackupDestinationService({
    destinations: { find: async () => DESTINATION } as unknown as BackupDestinationRepository,
    secrets: { open: () => 'the-secret' } as unknown as SecretBox,
    probe: async (d) => {
      calls.push('control plane');
      opened.push(d);
      return OK;
    },
    ...(o.withServerProbe === false
      ? {}
      : {
          fromServer: {
            nodes: { get: async (id: string) => (id === 'node-a' ? { name: 'a', grpcAddress: '10.0.0.1:7443' } : null) },
            probe: async (target: AgentTarget, d: OpenedDestination) => {
              calls.push(`agent of ${target.name}`);
              opened.push(d);
              return (o.agent ?? (async () => DNS))(target);
            },
          },
        }),
  });
  const access = grantAccess({ kind: 'user', userId: 'u-1' } as never, 'owner', { id: 'ws-1', nodeId: o.nodeId } as unknown as WorkspaceRecord);
  return { test: () => svc.test(access, 'dest-1'), calls, opened };
}

describe('the destination test call runs from the workspace server', () => {
  it("asks the agent of the workspace's server, and says which server answered", async () => {
    const t = setup({ nodeId: 'node-a' });
    expect(await t.test()).toEqual({ ...DNS, server: 'a' });
    expect(t.calls).toEqual(['agent of a']);
    // The agent gets the destination with its secret opened for this call, and the prefix.
    expect(t.opened).toEqual([{ endpoint: 'https://s3.example.com', region: 'auto', bucket: 'b', prefix: 'slipway/', pathStyle: false, accessKeyId: 'AKID', secretAccessKey: 'the-secret' }]);
  });

  it('falls back to the control plane when that agent does not answer, and says so in the message', async () => {
    const t = setup({
      nodeId: 'node-a',
      agent: async () => {
        throw new AppError('node_unavailable', 'The agent of a did not answer');
      },
    });
    expect(await t.test()).toEqual({ ...OK, message: `${OK.message} (Tested from the control plane: the workspace's server a did not answer; its backups upload from that server.)`, server: null });
    expect(t.calls).toEqual(['agent of a', 'control plane']);
  });

  it('falls back when the agent cannot run the test (an agent older than it)', async () => {
    const t = setup({
      nodeId: 'node-a',
      agent: async () => {
        throw new AppError('internal', 'The agent does not implement ProbeDestination');
      },
    });
    expect((await t.test()).message).toMatch(/\(Tested from the control plane: the workspace's server a could not run it \(The agent does not implement ProbeDestination\); its backups upload from that server\.\)$/);
  });

  it('runs from the control plane when the workspace has no server yet, or no agent gateway is wired', async () => {
    const none = setup({ nodeId: null });
    expect(await none.test()).toEqual({ ...OK, server: null });
    expect(none.calls).toEqual(['control plane']);
    const gone = setup({ nodeId: 'node-removed' });
    expect(await gone.test()).toEqual({ ...OK, server: null });
    const unwired = setup({ nodeId: 'node-a', withServerProbe: false });
    expect(await unwired.test()).toEqual({ ...OK, server: null });
    expect(unwired.calls).toEqual(['control plane']);
  });
});
