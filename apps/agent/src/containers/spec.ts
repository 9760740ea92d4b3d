import { LABELS } from '@slipway/core';
import type Docker from 'dockerode';

const PIDS_LIMIT = 512;
/** Docker brings a crashed container back with backoff; `Containers.ready` arms it once the container is ready. */
export const RESTART_POLICY: Docker.HostRestartPolicy = { Name: 'unless-stopped', MaximumRetryCount: 0 };

/**
 * What a workload (an app's deployment, a managed database, a backup's load check) asks of the container layer. The layer adds
 * what every Slipway container gets whatever the workload: the workspace network, the `slipway.workspace` label,
 * CPU/memory limits without swap, a pids limit, no privileges, every capability dropped but those listed,
 * no-new-privileges, a restart policy, bounded json-file logs, and the port published on 127.0.0.1 only.
 */
export interface ContainerSpec {
  name: string;
  image: string;
  workspaceId: string;
  /** The workload's own labels (`slipway.app`, `slipway.deployment`, `slipway.database`). */
  labels: Record<string, string>;
  env: Record<string, string>;
  limits: { cpuMillis: number; memoryMb: number };
  /** Host folder → path in the container. */
  mounts: { hostPath: string; containerPath: string }[];
  /** A fixed host port survives restarts; Caddy (or the public port proxy) is the way in. */
  port: { container: number; host: number } | null;
  /** Capabilities kept after dropping all; default NET_BIND_SERVICE. */
  capabilities?: string[];
  /** A read-only root file system: the container writes only to its mounts and tmpfs (its disk is capped). */
  readOnlyRoot?: boolean;
  /** tmpfs mounts, path → size in MB (memory: counted in the container's limit). */
  tmpfs?: Record<string, number>;
  /** Arguments after the image's entrypoint (default: the image's own command). */
  command?: string[];
  hostname?: string;
  /** Names the container answers to on its workspace network (`<slug>.internal`). */
  aliases?: string[];
}

/** Where a throw-away container runs: no network at all. */
export const NO_NETWORK = 'none';

/** Where the layer puts a container: its workspace's network (by id: names can be ambiguous) and this platform's label. */
export interface Placement {
  networkId: string;
  platformId: string;
}

/** The engine's create options for a spec (pure: what a container of Slipway looks like). */
export function createOptions(spec: ContainerSpec, placement: Placement): Docker.ContainerCreateOptions {
  const memory = spec.limits.memoryMb * 1024 * 1024;
  const port = spec.port ? `${spec.port.container}/tcp` : null;
  return {
    name: spec.name,
    Image: spec.image,
    Env: Object.entries(spec.env).map(([k, v]) => `${k}=${v}`),
    Labels: { ...spec.labels, [LABELS.workspace]: spec.workspaceId, [LABELS.platform]: placement.platformId },
    ExposedPorts: port ? { [port]: {} } : undefined,
    Cmd: spec.command,
    Hostname: spec.hostname,
    NetworkingConfig: spec.aliases?.length && placement.networkId !== NO_NETWORK ? { EndpointsConfig: { [placement.networkId]: { Aliases: spec.aliases } } } : undefined,
    HostConfig: {
      NanoCpus: spec.limits.cpuMillis * 1_000_000,
      Memory: memory,
      MemorySwap: memory,
      PidsLimit: PIDS_LIMIT,
      Privileged: false,
      CapDrop: ['ALL'],
      CapAdd: spec.capabilities ?? ['NET_BIND_SERVICE'],
      SecurityOpt: ['no-new-privileges:true'],
      Binds: spec.mounts.map((m) => `${m.hostPath}:${m.containerPath}`),
      ReadonlyRootfs: spec.readOnlyRoot ?? false,
      Tmpfs: spec.tmpfs ? Object.fromEntries(Object.entries(spec.tmpfs).map(([p, mb]) => [p, `rw,nosuid,nodev,size=${mb}m,mode=1777`])) : undefined,
      NetworkMode: placement.networkId,
      PortBindings: port && spec.port ? { [port]: [{ HostIp: '127.0.0.1', HostPort: String(spec.port.host) }] } : undefined,
      RestartPolicy: RESTART_POLICY,
      LogConfig: { Type: 'json-file', Config: { 'max-size': '10m', 'max-file': '3' } },
    },
  };
}
