import * as grpc from '@grpc/grpc-js';
import type {
  AgentGateway,
  AgentNodeInfo,
  AppPowerInput,
  AppRoute,
  RemoteRoute,
  DeployResult,
  PrepareImageInput,
  RolloutInput,
  AgentTarget,
  ContainerExitEvent,
  ContainerSnapshot,
  WatchContainerEventsOptions,
  ContainerFilter,
  FolderUsage,
  ManagedContainer,
  NoopResult,
  RemoveWorkspaceInput,
  WorkspaceNetworkInfo,
} from '@slipway/core';
import { agentTlsName } from '@slipway/pki';
import { fromServiceError } from './errors';
import type { AgentClient } from './generated/slipway/agent/v1/Agent';
import type { HealthClient } from './generated/grpc/health/v1/Health';
import type { DeployEvent__Output } from './generated/slipway/agent/v1/DeployEvent';
import type { ContainerEvent__Output } from './generated/slipway/agent/v1/ContainerEvent';
import type { ListManagedContainersResponse__Output } from './generated/slipway/agent/v1/ListManagedContainersResponse';
import type { ManagedContainer__Output } from './generated/slipway/agent/v1/ManagedContainer';
import type { RemoveManagedContainersResponse__Output } from './generated/slipway/agent/v1/RemoveManagedContainersResponse';
import { loadAgentProto, loadHealthProto } from './load';
import { controlPlaneCredentials, type TlsMaterial } from './tls';

export type { AgentClient, HealthClient };

const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  // An agent that comes back is found again within seconds, not grpc's default two minutes.
  'grpc.initial_reconnect_backoff_ms': 200,
  'grpc.max_reconnect_backoff_ms': 5_000,
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  // The HTTP/2 receive window of the connection and its streams (default 64 KiB): file downloads stall on
  // WINDOW_UPDATE round trips without a larger one. Flow control still bounds what is in flight.
  'grpc-node.flow_control_window': 4 * 1024 * 1024,
};

const DEFAULT_DEADLINE_MS = 30_000;

/** Typed clients of one agent over one channel (mutual TLS). */
export class AgentConnection {
  readonly agent: AgentClient;
  readonly healthClient: HealthClient;
  private readonly label: string;

  constructor(
    readonly target: AgentTarget,
    tls: TlsMaterial,
  ) {
    const options: grpc.ChannelOptions = { ...CHANNEL_OPTIONS };
    if (target.name) {
      // Agents' certificates carry `<name>.agent.slipway`: the node is identified by name, not by address.
      options['grpc.ssl_target_name_override'] = agentTlsName(target.name);
      options['grpc.default_authority'] = agentTlsName(target.name);
    }
    const credentials = controlPlaneCredentials(tls);
    const { Agent } = loadAgentProto().slipway.agent.v1;
    const { Health } = loadHealthProto().grpc.health.v1;
    this.agent = new Agent(target.grpcAddress, credentials, options);
    // Same address, credentials and options: grpc-js shares one subchannel between the two clients.
    this.healthClient = new Health(target.grpcAddress, credentials, options);
    this.label = target.name ? `${target.name} (${target.grpcAddress})` : target.grpcAddress;
  }

  close(): void {
    this.agent.close();
    this.healthClient.close();
  }

  private readonly services = new Map<string, grpc.Client>();

  /**
   * A client of another service of the same agent (Files, Builds) over this connection's channel, made once.
   * The channel carries the TLS and the verified name: the credentials passed to `make` are unused.
   */
  service<C extends grpc.Client>(name: string, make: (address: string, credentials: grpc.ChannelCredentials, options: grpc.ClientOptions) => C): C {
    let client = this.services.get(name) as C | undefined;
    if (!client) {
      client = make(this.target.grpcAddress, grpc.credentials.createInsecure(), { channelOverride: this.agent.getChannel() });
      this.services.set(name, client);
    }
    return client;
  }

  health(timeoutMs = 2_000): Promise<void> {
    return new Promise((resolve, reject) => {
      this.healthClient.check({ service: '' }, { deadline: Date.now() + timeoutMs }, (err, res) => {
        if (err) return reject(fromServiceError(err, this.label));
        if (res?.status !== 'SERVING') return reject(fromServiceError(new Error(`health status ${res?.status}`), this.label));
        resolve();
      });
    });
  }

  nodeInfo(): Promise<AgentNodeInfo> {
    return this.unary((cb, o) => this.agent.getNodeInfo({}, o, cb));
  }

  noop(input: { operationId: string; delayMs: number }): Promise<NoopResult> {
    return this.unary((cb, o) => this.agent.noop(input, o, cb), DEFAULT_DEADLINE_MS + input.delayMs);
  }

  async listManagedContainers(filter: ContainerFilter = {}): Promise<ManagedContainer[]> {
    const res = await this.unary<ListManagedContainersResponse__Output>((cb, o) => this.agent.listManagedContainers({ filter }, o, cb));
    return res.containers.map(toManaged);
  }

  async removeManagedContainers(input: { operationId: string; containerIds: string[] }): Promise<{ removed: string[]; skipped: string[] }> {
    const res = await this.unary<RemoveManagedContainersResponse__Output>((cb, o) => this.agent.removeManagedContainers(input, o, cb), 120_000);
    return { removed: res.removed, skipped: res.skipped };
  }

  watchContainerEvents(
    onEvent: (e: ContainerExitEvent) => void,
    onEnd: (error: Error | null) => void,
    onSnapshot?: (s: ContainerSnapshot) => void,
    options: WatchContainerEventsOptions = {},
  ): { stop(): void } {
    const call = this.agent.watchContainerEvents({ lifecycle: options.lifecycle ?? false });
    let stopped = false;
    let ended = false;
    const end = (error: Error | null) => {
      if (ended) return;
      ended = true;
      onEnd(error);
    };
    call.on('data', (e: ContainerEvent__Output) => {
      if (e.action === 'snapshot') onSnapshot?.({ atMs: e.atMs, containers: e.containers.map(toManaged) });
      else onEvent(containerEventOf(e));
    });
    call.on('error', (err: grpc.ServiceError) => end(stopped ? null : fromServiceError(err, this.label)));
    call.on('end', () => end(null));
    return {
      stop: () => {
        stopped = true;
        call.cancel();
      },
    };
  }

  prepareImage(input: PrepareImageInput, onLine: (line: string) => void): Promise<DeployResult> {
    return this.deployStream(this.agent.prepareImage(input, { deadline: Date.now() + 15 * 60_000 }), onLine);
  }

  rolloutApp(input: RolloutInput, onLine: (line: string) => void): Promise<DeployResult> {
    const deadline = Date.now() + input.readyTimeoutMs + input.stopGraceMs + 10 * 60_000;
    return this.deployStream(this.agent.rolloutApp(input, { deadline }), onLine);
  }

  async appPower(input: AppPowerInput): Promise<void> {
    await this.unary((cb, o) => this.agent.appPower(input, o, cb), 120_000 + input.stopGraceMs);
  }

  async removeApp(input: { operationId: string; workspaceId: string; appId: string }): Promise<{ containers: number; images: number }> {
    const res = await this.unary<{ containers: number; images: number }>((cb, o) => this.agent.removeApp(input, o, cb), 300_000);
    return { containers: res.containers, images: res.images };
  }

  async removeWorkspace(input: RemoveWorkspaceInput): Promise<{ containers: number; images: number; networks: number }> {
    const res = await this.unary<{ containers: number; images: number; networks: number }>((cb, o) => this.agent.removeWorkspace(input, o, cb), 300_000);
    return { containers: res.containers, images: res.images, networks: res.networks };
  }

  async listWorkspaceNetworks(): Promise<WorkspaceNetworkInfo[]> {
    const res = await this.unary<{ networks: WorkspaceNetworkInfo[] }>((cb, o) => this.agent.listWorkspaceNetworks({}, o, cb));
    return res.networks.map((n) => ({ id: n.id, name: n.name, workspaceId: n.workspaceId, subnets: [...n.subnets] }));
  }

  async syncRoutes(routes: AppRoute[], remote: RemoteRoute[] = []): Promise<{ added: number; removed: number }> {
    const res = await this.unary<{ added: number; removed: number }>((cb, o) => this.agent.syncRoutes({ routes, remote }, o, cb));
    return { added: res.added, removed: res.removed };
  }

  async folderUsage(appIds: string[]): Promise<FolderUsage[]> {
    const res = await this.unary<{ folders: FolderUsage[] }>((cb, o) => this.agent.folderUsage({ appIds }, o, cb), 10_000);
    return res.folders.map((f) => ({ appId: f.appId, limitMb: f.limitMb, usedMb: f.usedMb }));
  }

  containerLogs(input: { containerId: string; tail: number }): Promise<string> {
    return new Promise((resolve, reject) => {
      const call = this.agent.tailContainerLogs({ containerId: input.containerId, tail: input.tail, follow: false }, { deadline: Date.now() + 30_000 });
      const parts: Buffer[] = [];
      call.on('data', (c: { data: Buffer }) => parts.push(Buffer.from(c.data)));
      call.on('error', (err: grpc.ServiceError) => reject(fromServiceError(err, this.label)));
      call.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    });
  }

  /** Collects a DeployEvent stream: lines to `onLine`, the result from the last message. */
  private deployStream(call: grpc.ClientReadableStream<DeployEvent__Output>, onLine: (line: string) => void): Promise<DeployResult> {
    return new Promise((resolve, reject) => {
      let result: DeployResult | null = null;
      call.on('data', (e: DeployEvent__Output) => {
        if (e.line) onLine(e.line);
        if (e.result) result = { imageId: e.result.imageId, imageRef: e.result.imageRef, containerId: e.result.containerId, hostPort: e.result.hostPort, ...(e.result.settleMs ? { settleMs: e.result.settleMs } : {}) };
      });
      call.on('error', (err: grpc.ServiceError) => reject(fromServiceError(err, this.label)));
      call.on('end', () => (result ? resolve(result) : reject(fromServiceError(new Error('the stream ended without a result'), this.label))));
    });
  }

  private unary<T>(start: (cb: grpc.requestCallback<T>, options: grpc.CallOptions) => void, deadlineMs = DEFAULT_DEADLINE_MS): Promise<T> {
    return new Promise((resolve, reject) => {
      start(
        (err, res) => {
          if (err) reject(fromServiceError(err, this.label));
          else resolve(res as T);
        },
        { deadline: Date.now() + deadlineMs },
      );
    });
  }
}

/**
 * One connection per server, shared by every job and request of this process; implements the
 * AgentGateway port of @slipway/core.
 */
export class AgentPool implements AgentGateway {
  private readonly connections = new Map<string, AgentConnection>();

  constructor(private readonly tls: TlsMaterial) {}

  connection(target: AgentTarget): AgentConnection {
    const key = `${target.name ?? ''}|${target.grpcAddress}`;
    let c = this.connections.get(key);
    if (!c) {
      c = new AgentConnection(target, this.tls);
      this.connections.set(key, c);
    }
    return c;
  }

  health(target: AgentTarget, timeoutMs?: number) {
    return this.connection(target).health(timeoutMs);
  }
  nodeInfo(target: AgentTarget) {
    return this.connection(target).nodeInfo();
  }
  noop(target: AgentTarget, input: { operationId: string; delayMs: number }) {
    return this.connection(target).noop(input);
  }
  listManagedContainers(target: AgentTarget, filter?: ContainerFilter) {
    return this.connection(target).listManagedContainers(filter);
  }
  removeManagedContainers(target: AgentTarget, input: { operationId: string; containerIds: string[] }) {
    return this.connection(target).removeManagedContainers(input);
  }
  watchContainerEvents(
    target: AgentTarget,
    onEvent: (e: ContainerExitEvent) => void,
    onEnd: (error: Error | null) => void,
    onSnapshot?: (s: ContainerSnapshot) => void,
    options?: WatchContainerEventsOptions,
  ) {
    return this.connection(target).watchContainerEvents(onEvent, onEnd, onSnapshot, options);
  }

  prepareImage(target: AgentTarget, input: PrepareImageInput, onLine: (line: string) => void) {
    return this.connection(target).prepareImage(input, onLine);
  }
  rolloutApp(target: AgentTarget, input: RolloutInput, onLine: (line: string) => void) {
    return this.connection(target).rolloutApp(input, onLine);
  }
  appPower(target: AgentTarget, input: AppPowerInput) {
    return this.connection(target).appPower(input);
  }
  removeApp(target: AgentTarget, input: { operationId: string; workspaceId: string; appId: string }) {
    return this.connection(target).removeApp(input);
  }
  syncRoutes(target: AgentTarget, routes: AppRoute[], remote: RemoteRoute[] = []) {
    return this.connection(target).syncRoutes(routes, remote);
  }
  removeWorkspace(target: AgentTarget, input: RemoveWorkspaceInput) {
    return this.connection(target).removeWorkspace(input);
  }
  listWorkspaceNetworks(target: AgentTarget) {
    return this.connection(target).listWorkspaceNetworks();
  }
  containerLogs(target: AgentTarget, input: { containerId: string; tail: number }) {
    return this.connection(target).containerLogs(input);
  }
  folderUsage(target: AgentTarget, appIds: string[]) {
    return this.connection(target).folderUsage(appIds);
  }

  close(): void {
    for (const c of this.connections.values()) c.close();
    this.connections.clear();
  }
}

/** A container event off the wire; `cause` is absent when an agent older than issue 27 sent none. */
export function containerEventOf(e: ContainerEvent__Output): ContainerExitEvent {
  const out: ContainerExitEvent = { containerId: e.containerId, action: e.action, exitCode: e.exitCode, labels: { ...e.labels }, atMs: e.atMs };
  if (e.cause === 'platform' || e.cause === 'external') out.cause = e.cause;
  if (e.reason) out.reason = e.reason;
  if (e.settling) out.settling = true;
  if (e.action === 'die' && e.cause) {
    out.oomKilled = e.oomKilled;
    out.signal = e.signal;
  }
  return out;
}

/** A listed container as core types it: the settle fields only when set (proto3 gives '' and false otherwise). */
function toManaged({ settleFailure, fallbackDeploymentId, settling, ...c }: ManagedContainer__Output): ManagedContainer {
  return {
    ...c,
    labels: { ...c.labels },
    ...(settleFailure ? { settleFailure, fallbackDeploymentId } : {}),
    ...(settling ? { settling } : {}),
  };
}
