// What the Docker engine alone takes for the containers of N tiny web apps over M workspace networks, with the create
// options the agent gives an app (`createOptions` of apps/agent/src/containers/spec.ts: limits, read-only root, a /tmp
// tmpfs, the port published on 127.0.0.1, bounded json-file logs) and no platform in between: the floor a platform
// teardown or deployment at that size cannot go under on this engine (bench/density prints it beside its own figures).
// No project folder is mounted (each is a loop-mounted ext4 file system, the platform's own cost, measured by the
// platform half of the run), so the floor is the engine's part only.
import type Docker from 'dockerode';
import { removeLabelled } from '@slipway/testing/engine';
import { createOptions, type ContainerSpec } from '../../apps/agent/src/containers/spec';
import { pool } from './tiny-image';

export interface EngineFloor {
  /** Containers created and started, first and last tenth (ms, wall time of that tenth at `concurrency`). */
  createFirstTenthMs: number;
  createLastTenthMs: number;
  /** From the first removal (`rm -f`) to the last container gone, and to the last network gone. */
  removeContainersMs: number;
  removeAllMs: number;
  failed: number;
}

const LABEL = 'slipway-bench.engine-floor';

/** Creates `apps` containers of `image` (answering on `port`) over `workspaces` networks, then removes them all. */
export async function engineFloor(docker: Docker, o: { image: string; port: number; apps: number; workspaces: number; concurrency: number; publish: boolean }): Promise<EngineFloor> {
  await removeLabelled(docker, LABEL); // what an interrupted earlier run left
  let failed = 0;
  // Subnets from the top of the platform's default range (100.64.0.0/10), which the agent fills from the bottom.
  const networks = await pool(
    Array.from({ length: o.workspaces }, (_, i) => i),
    o.concurrency,
    async (i) => {
      const third = 255 - (i % 256);
      const second = 127 - Math.floor(i / 256);
      const n = await docker.createNetwork({
        Name: `slipway-bench-floor-${i}`,
        Driver: 'bridge',
        Labels: { [LABEL]: '1' },
        IPAM: { Config: [{ Subnet: `100.${second}.${third}.0/24`, Gateway: `100.${second}.${third}.1` }] },
      });
      return n.id;
    },
  );
  const tenth = Math.max(1, Math.floor(o.apps / 10));
  const started: number[] = [];
  const ended: number[] = [];
  const ids = await pool(
    Array.from({ length: o.apps }, (_, i) => i),
    o.concurrency,
    async (i) => {
      started[i] = performance.now();
      const spec: ContainerSpec = {
        name: `slipway-bench-floor-${i}`,
        image: o.image,
        workspaceId: `floor-${i % o.workspaces}`,
        labels: { [LABEL]: '1' },
        env: { PORT: String(o.port) },
        limits: { cpuMillis: 100, memoryMb: 128 },
        mounts: [],
        readOnlyRoot: true,
        tmpfs: { '/tmp': 64 },
        port: o.publish ? { container: o.port, host: 0 } : null,
      };
      let created: Docker.Container | null = null;
      try {
        created = await docker.createContainer(createOptions(spec, { networkId: networks[i % o.workspaces]!, platformId: 'bench-engine-floor' }));
        await created.start();
        return created.id;
      } catch {
        failed++;
        // One that was created but did not start is not left on the engine for the runs after.
        await created?.remove({ force: true }).catch(() => undefined);
        return null;
      } finally {
        ended[i] = performance.now();
      }
    },
  );
  const span = (from: number, to: number) => Math.max(...ended.slice(from, to)) - Math.min(...started.slice(from, to));
  // Removed as a teardown would, with nothing else on the engine: workspace by workspace, `concurrency` at a time, each
  // its containers and then its network, so networks go while other workspaces' containers are still being removed.
  const t0 = performance.now();
  let containersGone = t0;
  let left = ids.filter(Boolean).length;
  await pool(networks, o.concurrency, async (networkId, w) => {
    for (let i = w; i < ids.length; i += o.workspaces) {
      const id = ids[i];
      if (!id) continue;
      await docker.getContainer(id).remove({ force: true }).catch(() => void failed++);
      if (--left === 0) containersGone = performance.now();
    }
    await docker.getNetwork(networkId).remove().catch(() => void failed++);
  });
  return {
    createFirstTenthMs: span(0, tenth),
    createLastTenthMs: span(o.apps - tenth, o.apps),
    removeContainersMs: containersGone - t0,
    removeAllMs: performance.now() - t0,
    failed,
  };
}
