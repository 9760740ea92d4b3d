import os from 'node:os';
import { AppError, LABELS, type Logger } from '@slipway/core';
import type { DockerRuntime, ManagedNetwork } from './docker.runtime';
import { capacity, firstFree, formatCidr, gatewayOf, parseCidr, type Cidr } from './subnets';

/** The label that marks a network as a workspace's own (not a helper's, not another workload's). */
export const NETWORK_ROLE = 'slipway.network';

/**
 * The name of a workspace's network. Never used to find it (labels and ids are), but it must be unique: Docker 20.10
 * starts a container by its networks' names, so a container on a name two networks share never starts. It sorts after
 * the legacy name: a running container joined to it keeps its gateway (the engine takes the first network by name),
 * and with it its published port; a gateway that moves leaves the port unanswered until the container restarts.
 */
export const workspaceNetworkName = (workspaceId: string) => `slipway-wsnet-${workspaceId}`;

/** The name networks had before this layer owned them; concurrent creates made several of one name. */
export const legacyNetworkName = (workspaceId: string) => `slipway-ws-${workspaceId}`;

export interface NetworkSettings {
  /** CIDR the subnets come from (config SLIPWAY_NETWORK_RANGE). */
  range: string;
  /** Prefix length of each workspace's subnet (config SLIPWAY_NETWORK_SUBNET_PREFIX). */
  subnetPrefix: number;
}

/** How many times a create is retried when another engine client took the chosen subnet at the same moment. */
const CREATE_TRIES = 5;

/**
 * One bridge network per workspace, owned by the agent. Found by its labels (and, for networks made before them, by
 * the exact legacy name) and used by id, never by a name that can be ambiguous: Docker 20.10's duplicate-name check is
 * not atomic, so concurrent creates of one name made several networks, and a container on a shared name never starts.
 * Here creation happens under a per-workspace lock with the engine's duplicate check, and the engine's state is the
 * only record, so it is idempotent across agent restarts. A workspace holding other networks (legacy duplicates)
 * heals on its next `ensure`: containers on them are joined to the one kept (stopped ones also taken off theirs), and
 * every extra left without containers is removed; one still holding running containers goes once they are replaced. Subnets come from the agent's own range
 * (firstFree over every subnet the engine holds and the server's own addresses), not from the engine's default pools
 * (31 networks).
 */
export class WorkspaceNetworks {
  private readonly range: Cidr;
  private readonly locks = new Map<string, Promise<unknown>>();
  /** Subnet choice and creation are serialized across workspaces too: two creates must not pick one subnet. */
  private allocation: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly docker: DockerRuntime,
    private readonly settings: NetworkSettings,
    private readonly logger: Logger,
  ) {
    const range = parseCidr(settings.range);
    if (!range || capacity(range, settings.subnetPrefix) === 0) {
      throw new Error(`SLIPWAY_NETWORK_RANGE ${settings.range} holds no /${settings.subnetPrefix} subnet`);
    }
    this.range = range;
  }

  /** The id of the workspace's network, made (or healed) first when needed. */
  ensure(workspaceId: string): Promise<string> {
    return this.locked(workspaceId, () => this.ensureLocked(workspaceId));
  }

  /**
   * Every network of the workspace on this engine (its label or its exact legacy name; this platform's or made
   * before platform labels), most containers first.
   */
  async of(workspaceId: string): Promise<ManagedNetwork[]> {
    const labelled = await this.docker.networks({ labels: [`${LABELS.workspace}=${workspaceId}`], name: legacyNetworkName(workspaceId) });
    const named = await this.docker.networks({ name: workspaceNetworkName(workspaceId) });
    const found = [...new Map([...labelled, ...named].map((n) => [n.id, n])).values()].filter((n) => this.docker.isMine(n.labels));
    const withContainers = await Promise.all(
      found.map(async (n) => ({ ...n, containers: (await this.docker.networkContainers(n.id)) ?? [] })),
    );
    // Most containers first, then the oldest: the one kept is the one that moves least.
    return withContainers.sort((a, b) => b.containers.length - a.containers.length || a.createdAtMs - b.createdAtMs);
  }

  /** Workspace networks of this platform on this engine (for reconciliation). */
  async list(): Promise<ManagedNetwork[]> {
    return this.docker.networks({ labels: [NETWORK_ROLE, `${LABELS.platform}=${this.docker.platformId}`] });
  }

  /**
   * Removes the workspace's networks that no container uses any more; returns how many went. Networks still
   * holding containers stay (their containers are removed first by the caller).
   */
  remove(workspaceId: string): Promise<{ removed: number; inUse: number }> {
    return this.locked(workspaceId, async () => {
      let removed = 0;
      let inUse = 0;
      for (const n of await this.of(workspaceId)) {
        if (n.containers.length > 0) {
          inUse++;
          continue;
        }
        await this.docker.removeNetwork(n.id);
        removed++;
      }
      return { removed, inUse };
    });
  }

  private async ensureLocked(workspaceId: string): Promise<string> {
    const networks = await this.of(workspaceId);
    // Kept: the one of the workspace's own name with most containers; none yet (or only legacy ones): a new one.
    const kept = networks.find((n) => n.name === workspaceNetworkName(workspaceId)) ?? null;
    const id = kept?.id ?? (await this.create(workspaceId));
    const extras = networks.filter((n) => n.id !== id);
    if (extras.length) await this.heal(workspaceId, id, extras);
    return id;
  }

  private async heal(workspaceId: string, keptId: string, extras: ManagedNetwork[]): Promise<void> {
    const extraIds = new Set(extras.map((n) => n.id));
    const byName = new Map(extras.map((n) => [n.name, n.id]));
    // Attached containers, and the workspace's containers never started (they have no endpoint the network lists).
    const candidates = new Set([...extras.flatMap((n) => n.containers), ...(await this.docker.containersWith([`${LABELS.workspace}=${workspaceId}`])).map((c) => c.Id)]);
    let joined = 0;
    for (const containerId of candidates) {
      const { running, networks } = await this.docker.containerNetworks(containerId);
      const stale = networks
        .map((n) => (extraIds.has(n.networkId) ? n.networkId : !n.networkId ? byName.get(n.name) : undefined))
        .filter((id): id is string => id !== undefined);
      if (!stale.length) continue;
      // Joined to the one kept, so it reaches (and is reached by) the workspace's new containers.
      await this.docker.connectNetwork(keptId, containerId);
      joined++;
      // A running container stays on its extra too: taking it off would move its gateway and unpublish its port. It
      // leaves with its container (replaced at its app's next deployment); a stopped one is taken off now.
      if (!running) for (const id of stale) await this.docker.disconnectNetwork(id, containerId);
    }
    const removed: string[] = [];
    for (const extra of extras) {
      if (((await this.docker.networkContainers(extra.id)) ?? []).length > 0) continue;
      await this.docker.removeNetwork(extra.id);
      removed.push(`${extra.name} ${extra.id}`);
    }
    this.logger.warn({ workspaceId, kept: keptId, joined, removed, left: extras.length - removed.length }, 'healed: the workspace had extra networks');
  }

  private create(workspaceId: string): Promise<string> {
    const run = this.allocation.then(() => this.createLocked(workspaceId));
    this.allocation = run.catch(() => undefined);
    return run;
  }

  private async createLocked(workspaceId: string): Promise<string> {
    const hostAddresses = Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).filter((a) => a.family === 'IPv4').map((a) => a.address));
    for (let attempt = 1; ; attempt++) {
      const taken = (await this.docker.takenSubnets()).map(parseCidr).filter((c): c is Cidr => c !== null);
      const subnet = firstFree(this.range, this.settings.subnetPrefix, taken, hostAddresses);
      if (!subnet) {
        this.logger.error(
          { workspaceId, range: this.settings.range, subnetPrefix: this.settings.subnetPrefix, capacity: capacity(this.range, this.settings.subnetPrefix) },
          'the workspace network range is full: enlarge SLIPWAY_NETWORK_RANGE or raise SLIPWAY_NETWORK_SUBNET_PREFIX',
        );
        throw new AppError('rollout_failed', 'The server has no free network for this workspace; the operator has been told');
      }
      try {
        const id = await this.docker.createNetwork({
          name: workspaceNetworkName(workspaceId),
          labels: { [LABELS.workspace]: workspaceId, [LABELS.platform]: this.docker.platformId, [NETWORK_ROLE]: 'workspace' },
          subnet: formatCidr(subnet),
          gateway: gatewayOf(subnet),
        });
        this.logger.info({ workspaceId, network: id, subnet: formatCidr(subnet) }, 'workspace network created');
        return id;
      } catch (e) {
        // Another client of the engine (a second platform, a person) took the subnet between the listing and the create.
        if (attempt < CREATE_TRIES && /overlap/i.test((e as Error).message)) continue;
        // Another agent process made it meanwhile (the engine's duplicate check): use that one.
        if ((e as { statusCode?: number }).statusCode === 409) {
          const made = (await this.docker.networks({ name: workspaceNetworkName(workspaceId) }))[0];
          if (made) return made.id;
        }
        throw e;
      }
    }
  }

  /** Runs `work` after every earlier call for the same workspace has settled. */
  private locked<T>(workspaceId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(workspaceId) ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(work);
    const tail = run.catch(() => undefined);
    this.locks.set(workspaceId, tail);
    void tail.then(() => {
      if (this.locks.get(workspaceId) === tail) this.locks.delete(workspaceId);
    });
    return run;
  }
}
