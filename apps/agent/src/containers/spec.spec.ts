import { LABELS } from '@slipway/core';
import { createOptions, type ContainerSpec } from './spec';

const spec: ContainerSpec = {
  name: 'slipway-app-d1',
  image: 'slipway-app/a1:d1',
  workspaceId: 'w1',
  labels: { [LABELS.app]: 'a1', [LABELS.deployment]: 'd1' },
  env: { PORT: '8080', A: 'b=c' },
  limits: { cpuMillis: 500, memoryMb: 256 },
  mounts: [{ hostPath: '/data/volumes/a1', containerPath: '/app' }],
  port: { container: 8080, host: 41000 },
};

describe('the container layer: what every Slipway container gets', () => {
  it('joins the workspace network, carries the workspace label and the workload labels', () => {
    const o = createOptions(spec);
    expect(o.HostConfig?.NetworkMode).toBe('slipway-ws-w1');
    expect(o.Labels).toEqual({ [LABELS.workspace]: 'w1', [LABELS.app]: 'a1', [LABELS.deployment]: 'd1' });
    expect(o.Env).toEqual(['PORT=8080', 'A=b=c']);
  });

  it('is limited and hardened: CPU, memory without swap, pids, no privileges, capabilities dropped, no-new-privileges', () => {
    const h = createOptions(spec).HostConfig!;
    expect(h).toMatchObject({
      NanoCpus: 500_000_000,
      Memory: 256 * 1024 * 1024,
      MemorySwap: 256 * 1024 * 1024,
      PidsLimit: 512,
      Privileged: false,
      CapDrop: ['ALL'],
      CapAdd: ['NET_BIND_SERVICE'],
      SecurityOpt: ['no-new-privileges:true'],
      RestartPolicy: { Name: 'unless-stopped', MaximumRetryCount: 0 },
    });
    expect(createOptions({ ...spec, capabilities: [] }).HostConfig?.CapAdd).toEqual([]);
  });

  it('caps its own disk when asked: a read-only root and sized tmpfs mounts', () => {
    const h = createOptions({ ...spec, readOnlyRoot: true, tmpfs: { '/tmp': 64 } }).HostConfig!;
    expect(h.ReadonlyRootfs).toBe(true);
    expect(h.Tmpfs).toEqual({ '/tmp': 'rw,nosuid,nodev,size=64m,mode=1777' });
    expect(createOptions(spec).HostConfig!.ReadonlyRootfs).toBe(false);
  });

  it('publishes the port on 127.0.0.1 only, and nothing without a port', () => {
    expect(createOptions(spec).HostConfig?.PortBindings).toEqual({ '8080/tcp': [{ HostIp: '127.0.0.1', HostPort: '41000' }] });
    const worker = createOptions({ ...spec, port: null });
    expect(worker.HostConfig?.PortBindings).toBeUndefined();
    expect(worker.ExposedPorts).toBeUndefined();
  });
});
