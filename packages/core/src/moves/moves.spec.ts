import { InProcessResourceLocks } from '../convergence/resource-locks';
import type { Logger } from '../logging';
import type { NodeRepository, NodeWithUsage } from '../nodes/node.ports';
import type { JobName, JobPayloads } from '../jobs';
import { canMoveMove, moveSourcesOf, runMoveSteps, type MoveState, type MoveStep, type MoveStepRecord } from './move-state';
import type { AppWithDeployment } from '../apps/app.ports';
import type { DatabaseRecord } from '../databases/database.ports';
import type { DomainCertificateStorage, StoredCertificate } from '../domains/domain.ports';
import type { AppToMove, MoveRecord, MoveStore, MoveWorkspace, MoveWorkspaceStore, NewMove, SwitchedApp, SwitchedDatabase } from './move.ports';
import { MoveRunner, type MoveRunnerDeps } from './move-runner';
import { MoveService } from './move.service';

const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {}, child: () => quiet };
const clock = () => new Date('2026-11-27T03:00:00Z');

/** Steps that log what they do into `trail`. */
function step(name: string, trail: string[], o: { fail?: string; commit?: boolean; undoFails?: boolean } = {}): MoveStep {
  return {
    name,
    commit: o.commit,
    run: async () => {
      trail.push(`run ${name}`);
      if (o.fail) throw new Error(o.fail);
      return { sentence: `${name} done` };
    },
    undo: async () => {
      trail.push(`undo ${name}`);
      if (o.undoFails) throw new Error(`${name} would not undo.`);
      return `${name} undone`;
    },
  };
}

function recorder(cancelAt: number | null = null) {
  const records: MoveStepRecord[] = [];
  let asked = 0;
  return {
    records,
    io: {
      record: async (r: MoveStepRecord) => void records.push(r),
      cancelled: async () => cancelAt !== null && ++asked > cancelAt,
      now: clock,
    },
  };
}

describe('a move as a state machine', () => {
  it('allows only forward moves: queued → running | cancelled, running → an end or running again, nothing after an end', () => {
    expect(canMoveMove('queued', 'running')).toBe(true);
    expect(canMoveMove('queued', 'cancelled')).toBe(true);
    expect(canMoveMove('running', 'running')).toBe(true);
    expect(canMoveMove('running', 'succeeded')).toBe(true);
    expect(canMoveMove('succeeded', 'failed')).toBe(false);
    expect(canMoveMove('cancelled', 'running')).toBe(false);
    expect(canMoveMove('failed', 'queued')).toBe(false);
    expect(moveSourcesOf('failed').sort()).toEqual(['queued', 'running']);
  });

  it('runs every step in order and records each one done', async () => {
    const trail: string[] = [];
    const { records, io } = recorder();
    const outcome = await runMoveSteps([step('check', trail), step('switch', trail, { commit: true }), step('clean-source', trail)], io);
    expect(outcome).toEqual({ state: 'succeeded', leftovers: [] });
    expect(trail).toEqual(['run check', 'run switch', 'run clean-source']);
    expect(records.map((r) => [r.step, r.outcome, r.sentence])).toEqual([
      ['check', 'done', 'check done'],
      ['switch', 'done', 'switch done'],
      ['clean-source', 'done', 'clean-source done'],
    ]);
  });

  it('undoes the done steps in reverse when a step fails before the commit, and says why in a sentence', async () => {
    const trail: string[] = [];
    const { records, io } = recorder();
    const outcome = await runMoveSteps([step('check', trail), step('copy', trail), step('start-target', trail, { fail: 'The container never became ready.' }), step('switch', trail, { commit: true })], io);
    expect(outcome).toEqual({ state: 'failed', error: 'start-target failed: The container never became ready; the workspace stays on its source server as it was' });
    expect(trail).toEqual(['run check', 'run copy', 'run start-target', 'undo copy', 'undo check']);
    expect(records.map((r) => `${r.step} ${r.outcome}`)).toEqual(['check done', 'copy done', 'start-target failed', 'copy undone', 'check undone']);
  });

  it('records an undo that fails and still runs the ones before it', async () => {
    const trail: string[] = [];
    const { records, io } = recorder();
    const outcome = await runMoveSteps([step('a', trail), step('b', trail, { undoFails: true }), step('c', trail, { fail: 'no' })], io);
    expect(outcome.state).toBe('failed');
    expect(trail).toEqual(['run a', 'run b', 'run c', 'undo b', 'undo a']);
    expect(records.at(-2)).toMatchObject({ step: 'b', outcome: 'failed', sentence: 'Could not be undone: b would not undo' });
    expect(records.at(-1)).toMatchObject({ step: 'a', outcome: 'undone' });
  });

  it('after the commit a failing step is a leftover: recorded, nothing undone, the move succeeds', async () => {
    const trail: string[] = [];
    const { io } = recorder();
    const outcome = await runMoveSteps([step('check', trail), step('switch', trail, { commit: true }), step('clean-source', trail, { fail: 'source away' })], io);
    expect(outcome).toEqual({ state: 'succeeded', leftovers: ['clean-source: source away'] });
    expect(trail).toEqual(['run check', 'run switch', 'run clean-source']);
  });

  it('a cancel asked before a step stops there and undoes what was done; after the commit it no longer applies', async () => {
    const trail: string[] = [];
    const before = recorder(1);
    expect(await runMoveSteps([step('check', trail), step('copy', trail), step('switch', trail, { commit: true })], before.io)).toEqual({
      state: 'cancelled',
      error: 'Cancelled before copy; the workspace stays on its source server',
    });
    expect(trail).toEqual(['run check', 'undo check']);

    const after: string[] = [];
    const late = recorder(1);
    expect(await runMoveSteps([step('switch', after, { commit: true }), step('clean-source', after)], late.io)).toEqual({ state: 'succeeded', leftovers: [] });
    expect(after).toEqual(['run switch', 'run clean-source']);
  });

  /** A step whose work begins ahead, before the step `from` runs, and whose run joins it; its work ends when released or stopped. */
  function aheadStep(name: string, from: string, trail: string[], o: { fail?: string } = {}) {
    let release: () => void = () => {};
    let work: Promise<string> | null = null;
    const s: MoveStep = {
      ...step(name, trail),
      ahead: {
        from,
        begin: (signal) => {
          trail.push(`begin ${name}`);
          work = new Promise<string>((resolve, reject) => {
            release = () => (o.fail ? reject(new Error(o.fail)) : resolve(`${name} copied`));
            signal.addEventListener('abort', () => {
              trail.push(`stop ${name}`);
              reject(new Error('stopped'));
            });
          });
          return work;
        },
      },
      run: async () => {
        trail.push(`join ${name}`);
        return { sentence: await work! };
      },
    };
    return { step: s, release: () => release() };
  }

  it('begins a step\'s work ahead, before the step it names, and its run joins it', async () => {
    const trail: string[] = [];
    const { records, io } = recorder();
    const pre = aheadStep('move-databases', 'copy-images', trail);
    const images: MoveStep = { ...step('copy-images', trail), run: async () => (trail.push('run copy-images'), pre.release(), { sentence: 'images copied' }) };
    const outcome = await runMoveSteps([step('check', trail), images, step('start-target', trail), pre.step, step('switch', trail, { commit: true })], io);
    expect(outcome).toEqual({ state: 'succeeded', leftovers: [] });
    expect(trail).toEqual(['run check', 'begin move-databases', 'run copy-images', 'run start-target', 'join move-databases', 'run switch']);
    expect(records.map((r) => `${r.step} ${r.outcome} ${r.sentence}`)).toEqual([
      'check done check done',
      'copy-images done images copied',
      'start-target done start-target done',
      'move-databases done move-databases copied',
      'switch done switch done',
    ]);
  });

  it('on a failure before the join, stops the work begun ahead, waits for it, then undoes it with the done steps in reverse order', async () => {
    const trail: string[] = [];
    const { records, io } = recorder();
    const backups = aheadStep('copy-backups', 'copy-images', trail);
    const pre = aheadStep('move-databases', 'copy-images', trail);
    const outcome = await runMoveSteps(
      [step('check', trail), step('copy-images', trail), step('start-target', trail, { fail: 'The container never became ready.' }), backups.step, pre.step, step('switch', trail, { commit: true })],
      io,
    );
    expect(outcome).toEqual({ state: 'failed', error: 'start-target failed: The container never became ready; the workspace stays on its source server as it was' });
    expect(trail).toEqual([
      'run check',
      'begin copy-backups',
      'begin move-databases',
      'run copy-images',
      'run start-target',
      // Stopped and settled before anything is undone; then undone though their runs never came.
      'stop copy-backups',
      'stop move-databases',
      'undo move-databases',
      'undo copy-backups',
      'undo copy-images',
      'undo check',
    ]);
    expect(records.map((r) => `${r.step} ${r.outcome}`)).toEqual(['check done', 'copy-images done', 'start-target failed', 'move-databases undone', 'copy-backups undone', 'copy-images undone', 'check undone']);
  });

  it('work begun ahead that failed fails its own step when it joins (that step undoes itself), and a cancel stops it like a failure', async () => {
    const trail: string[] = [];
    const { records, io } = recorder();
    const pre = aheadStep('move-databases', 'copy-images', trail, { fail: 'b did not answer.' });
    const images: MoveStep = { ...step('copy-images', trail), run: async () => (pre.release(), { sentence: 'images copied' }) };
    const outcome = await runMoveSteps([step('check', trail), images, pre.step, step('switch', trail, { commit: true })], io);
    expect(outcome).toEqual({ state: 'failed', error: 'move-databases failed: b did not answer; the workspace stays on its source server as it was' });
    expect(records.map((r) => `${r.step} ${r.outcome}`)).toEqual(['check done', 'copy-images done', 'move-databases failed', 'copy-images undone', 'check undone']);
    expect(trail).not.toContain('undo move-databases');

    const cancelled: string[] = [];
    const asked = recorder(2);
    const late = aheadStep('move-databases', 'copy-images', cancelled);
    expect(await runMoveSteps([step('check', cancelled), step('copy-images', cancelled), step('start-target', cancelled), late.step], asked.io)).toEqual({
      state: 'cancelled',
      error: 'Cancelled before start-target; the workspace stays on its source server',
    });
    expect(cancelled).toEqual(['run check', 'begin move-databases', 'run copy-images', 'stop move-databases', 'undo move-databases', 'undo copy-images', 'undo check']);
  });
});

// ---- in-memory stores for the runner and the service ----

class MemoryMoves implements MoveStore {
  rows: MoveRecord[] = [];
  private n = 0;
  async create(input: NewMove, at: Date): Promise<MoveRecord> {
    const row: MoveRecord = { ...input, id: `00000000-0000-4000-8000-${String(++this.n).padStart(12, '0')}`, state: 'queued', steps: [], error: null, attempts: 0, cancelRequestedAt: null, createdAt: new Date(at.getTime() + this.n), startedAt: null, finishedAt: null };
    this.rows.push(row);
    return { ...row };
  }
  async get(id: string) {
    const r = this.rows.find((m) => m.id === id);
    return r ? { ...r, steps: [...r.steps] } : null;
  }
  async list(f: { limit: number; workspaceId?: string; unfinished?: boolean }) {
    return this.rows
      .filter((m) => (!f.workspaceId || m.workspaceId === f.workspaceId) && (!f.unfinished || m.state === 'queued' || m.state === 'running'))
      .reverse()
      .slice(0, f.limit)
      .map((m) => ({ ...m }));
  }
  async transition(id: string, from: readonly MoveState[], to: MoveState, patch: { error?: string | null; startedAt?: Date; finishedAt?: Date; countAttempt?: boolean } = {}) {
    const r = this.rows.find((m) => m.id === id);
    if (!r || !from.includes(r.state)) return null;
    r.state = to;
    if (patch.error !== undefined) r.error = patch.error;
    if (patch.startedAt) r.startedAt = patch.startedAt;
    if (patch.finishedAt) r.finishedAt = patch.finishedAt;
    if (patch.countAttempt) r.attempts++;
    return { ...r };
  }
  async appendStep(id: string, s: MoveStepRecord) {
    this.rows.find((m) => m.id === id)!.steps.push(s);
  }
  async requestCancel(id: string, at: Date) {
    const r = this.rows.find((m) => m.id === id);
    if (!r || (r.state !== 'queued' && r.state !== 'running')) return null;
    r.cancelRequestedAt ??= at;
    return { ...r };
  }
  async nextOfDrain(fromNodeId: string) {
    return this.rows.find((m) => m.fromNodeId === fromNodeId && m.reason === 'drain' && m.state === 'queued') ?? null;
  }
}

class MemoryWorkspaces implements MoveWorkspaceStore {
  /** Apps by workspace id. */
  apps = new Map<string, AppToMove[]>();
  /** What each switch recorded of the apps. */
  switched: SwitchedApp[][] = [];
  /** Databases by workspace id, what each switch recorded of them, public ports held per server, backup folders. */
  databases = new Map<string, DatabaseRecord[]>();
  switchedDatabases: SwitchedDatabase[][] = [];
  ports = new Map<string, number[]>();
  backups = new Map<string, { databaseId: string; backups: number }[]>();
  constructor(public rows: MoveWorkspace[]) {}
  async appsToMove(id: string) {
    return this.apps.get(id) ?? [];
  }
  async find(ref: string) {
    return this.rows.find((w) => w.id === ref || w.slug === ref) ?? null;
  }
  async onNode(nodeId: string) {
    return this.rows.filter((w) => w.nodeId === nodeId);
  }
  /** The event each switch gave the apps and databases. */
  events: string[] = [];
  async switchServer(id: string, from: string, to: string, apps: SwitchedApp[], databases: SwitchedDatabase[], event: string) {
    const w = this.rows.find((x) => x.id === id);
    const now = this.apps.get(id) ?? [];
    if (!w || w.nodeId !== from || w.databases !== databases.length || w.apps !== now.length || apps.length !== now.length || now.some((a) => a.busy)) return false;
    w.nodeId = to;
    this.switched.push(apps);
    this.switchedDatabases.push(databases);
    this.events.push(event);
    return true;
  }
  async publicPortsOn(nodeId: string) {
    return this.ports.get(nodeId) ?? [];
  }
  async backupFoldersOn(workspaceId: string) {
    return this.backups.get(workspaceId) ?? [];
  }
  async appIds() {
    return ['old-app'];
  }
  /** Custom domains' hostnames by workspace id. */
  domains = new Map<string, string[]>();
  async domainHostnames(workspaceId: string) {
    return this.domains.get(workspaceId) ?? [];
  }
}

const node = (name: string, o: Partial<NodeWithUsage> = {}): NodeWithUsage => ({
  id: `id-${name}`,
  name,
  grpcAddress: `${name}:7443`,
  publicIpv4: [],
  cpuMillis: 4000,
  memoryMb: 8192,
  version: '1',
  certFingerprint: '',
  certNotAfter: clock(),
  status: 'online',
  lastSeenAt: clock(),
  disk: null,
  cordonedAt: null,
  unreachableSince: null,
  databaseEngines: null,
  createdAt: clock(),
  reservedCpuMillis: 0,
  reservedMemoryMb: 0,
  placed: { workspaces: 0, apps: 0, databases: 0, reservations: 0 },
  ...o,
});

function nodeRepo(list: NodeWithUsage[]): NodeRepository {
  return {
    listWithUsage: async () => list,
    list: async () => list,
    get: async (id: string) => list.find((n) => n.id === id) ?? null,
    setCordoned: async (name: string, at: Date | null) => {
      const n = list.find((x) => x.name === name);
      if (!n) return null;
      n.cordonedAt = at;
      return n;
    },
  } as unknown as NodeRepository;
}

const ws = (slug: string, nodeId: string, o: Partial<MoveWorkspace> = {}): MoveWorkspace => ({
  id: `ws-${slug}`,
  slug,
  nodeId,
  apps: 0,
  databases: 0,
  reserved: { cpuMillis: 250, memoryMb: 256, diskMb: 512 },
  ...o,
});

function fleet(workspaces: MoveWorkspace[], nodes = [node('a'), node('b')], health: (n: string) => Promise<void> = async () => {}) {
  const moves = new MemoryMoves();
  const store = new MemoryWorkspaces(workspaces);
  const repo = nodeRepo(nodes);
  const queued: { name: JobName; payload: JobPayloads[JobName]; jobId: string }[] = [];
  const jobs = { enqueue: async <N extends JobName>(name: N, payload: JobPayloads[N], o: { jobId: string }) => void queued.push({ name, payload, jobId: o.jobId }) };
  const removed: { node: string | null; workspaceId: string; appIds: string[] }[] = [];
  /** Every agent call of the move, in order: `<call> <server> <app>`. */
  const calls: string[] = [];
  const agents = {
    health: async (t: { name: string | null }) => health(t.name ?? ''),
    removeWorkspace: async (t: { name: string | null }, input: { workspaceId: string; appIds: string[] }) => {
      removed.push({ node: t.name, workspaceId: input.workspaceId, appIds: input.appIds });
      return { containers: 0, images: 0, networks: 1 };
    },
    removeApp: async (t: { name: string | null }, input: { appId: string }) => {
      calls.push(`removeApp ${t.name} ${input.appId}`);
      return { containers: 1, images: 1 };
    },
    rolloutApp: async (t: { name: string | null }, input: { appId: string; imageRef: string; routeHost: string }) => {
      calls.push(`rollout ${t.name} ${input.appId} ${input.imageRef} ${input.routeHost}`);
      if (failRollout === input.appId) throw new Error('The container never answered on its port.');
      return { containerId: `c-${t.name}-${input.appId}`, hostPort: 40000, imageId: 'sha256:x', imageRef: input.imageRef, lines: [] };
    },
    appPower: async (t: { name: string | null }, input: { appId: string; action: string; containerId: string }) => void calls.push(`${input.action} ${t.name} ${input.appId} ${input.containerId}`),
  } as unknown as MoveRunnerDeps['agents'];
  let failRollout: string | null = null;
  const transfer = {
    copyImages: async (from: { name: string | null }, to: { name: string | null }, input: { imageRefs: string[] }) => {
      calls.push(`images ${from.name}→${to.name} ${input.imageRefs.join(',')}`);
      return { bytes: 2 * 1024 * 1024, imageRefs: input.imageRefs };
    },
    copyFolder: async (from: { name: string | null }, to: { name: string | null }, input: { appId: string; seededImageRef: string }) => {
      calls.push(`folder ${from.name}→${to.name} ${input.appId} ${input.seededImageRef}`);
      return { bytes: 1024 * 1024 };
    },
    copyDatabaseFolder: async (from: { name: string | null }, to: { name: string | null }, input: { databaseId: string; folder: string; live?: boolean; signal?: AbortSignal }) => {
      if (input.signal) signals.push(input.signal);
      calls.push(`${input.folder}${input.live ? ' (live)' : ''} ${from.name}→${to.name} ${input.databaseId}`);
      if (failPreCopyOf === input.databaseId) throw new Error('b did not answer (connect ECONNREFUSED)');
      if (input.folder === 'backups' && failBackupsOf === input.databaseId) throw new Error('There is no room left on b for the backups');
      if (emptyData.has(input.databaseId) && input.live) return { bytes: 0, unpacked: 0 };
      return input.folder === 'data' ? { bytes: 3 * 1024 * 1024, unpacked: 9 * 1024 * 1024 } : { bytes: 3 * 1024 * 1024 };
    },
    dataSignature: async (on: { name: string | null }, input: { databaseId: string; blockBytes: number }) => {
      calls.push(`signature ${on.name} ${input.databaseId} ${input.blockBytes}`);
      return Buffer.from(`signature of ${input.databaseId}`);
    },
    copyDataDelta: async (from: { name: string | null }, to: { name: string | null }, input: { databaseId: string; signature: Uint8Array; live: boolean }) => {
      calls.push(`delta${input.live ? ' (live)' : ''} ${from.name}→${to.name} ${input.databaseId}`);
      expect(Buffer.from(input.signature).toString()).toBe(`signature of ${input.databaseId}`);
      // The first live pass carries a lot (more passes follow), the second little; the final one the last changes.
      const pass = calls.filter((c) => c === `delta (live) ${from.name}→${to.name} ${input.databaseId}`).length;
      return { bytes: input.live ? (pass === 1 ? 40 * 1024 * 1024 : 2 * 1024 * 1024) : 512 * 1024 };
    },
    removeBackupFolders: async (on: { name: string | null }, ids: string[]) => {
      calls.push(`removeBackups ${on.name} ${ids.join(',')}`);
      return { removed: ids.length };
    },
  };
  let failDatabaseOn: string | null = null;
  let failPreCopyOf: string | null = null;
  /** The signals the copies begun ahead were given (aborted when the move fails before their turn). */
  const signals: AbortSignal[] = [];
  let failBackupsOf: string | null = null;
  const emptyData = new Set<string>();
  const databaseAgent = {
    stopDatabase: async (t: { name: string | null }, input: { databaseId: string }) => void calls.push(`stopDb ${t.name} ${input.databaseId}`),
    removeDatabase: async (t: { name: string | null }, input: { databaseId: string }) => {
      calls.push(`removeDb ${t.name} ${input.databaseId}`);
      return { containerRemoved: true, dataRemoved: true };
    },
    ensureDatabase: async (t: { name: string | null }, input: { databaseId: string; password: string; public: { port: number; allowedCidrs: string[] } | null; tls: { certPem: string } | null }) => {
      calls.push(`ensureDb ${t.name} ${input.databaseId} ${input.password} ${input.public ? `${input.public.port} ${input.public.allowedCidrs.join(',')}` : 'private'} ${input.tls?.certPem}`);
      if (failDatabaseOn === t.name) throw new Error('The engine did not accept an authenticated connection within 120 s.');
      return { databaseId: input.databaseId, containerId: 'c', state: 'running', publicPort: input.public?.port ?? 0, message: '', replayed: false };
    },
  } as unknown as MoveRunnerDeps['databaseAgent'];
  let certificatesRefused: string | null = null;
  /** The certificates each server's Caddy storage holds, by server name and hostname. */
  const stored = new Map<string, Map<string, StoredCertificate>>();
  const storageOf = (name: string | null) => stored.get(name ?? '') ?? stored.set(name ?? '', new Map()).get(name ?? '')!;
  const domainCertificates: DomainCertificateStorage = {
    exportCertificates: async (t, hostnames) => {
      calls.push(`exportCerts ${t.name} ${hostnames.join(',')}`);
      if (certificatesRefused) throw new Error(certificatesRefused);
      return hostnames.flatMap((h) => (storageOf(t.name).has(h) ? [storageOf(t.name).get(h)!] : []));
    },
    importCertificates: async (t, certs) => {
      calls.push(`importCerts ${t.name} ${certs.map((c) => c.hostname).join(',')}`);
      for (const c of certs) storageOf(t.name).set(c.hostname, c);
      return { stored: certs.length };
    },
    removeCertificates: async (t, hostnames) => {
      calls.push(`removeCerts ${t.name} ${hostnames.join(',')}`);
      const removed = hostnames.filter((h) => storageOf(t.name).delete(h)).length;
      return { removed, kept: [] };
    },
  };
  const records = new Map<string, AppWithDeployment>();
  const service = new MoveService({ moves, workspaces: store, nodes: repo, jobs, clock });
  const runner = new MoveRunner({
    moves,
    workspaces: store,
    nodes: repo,
    agents,
    transfer,
    apps: { getById: async (id: string) => (records.has(id) ? { ...records.get(id)!, deletedAt: null } : null) },
    env: { list: async () => [] } as unknown as MoveRunnerDeps['env'],
    databases: { listOfWorkspace: async (id: string) => store.databases.get(id) ?? [] },
    databaseAgent,
    certificates: { serverCertificate: async (n: { id: string }) => ({ certPem: `cert-${n.id}`, keyPem: 'key' }) },
    secrets: { open: (sealed: string) => sealed.replace('sealed:', '') } as MoveRunnerDeps['secrets'],
    appsDomain: { domain: 'apps.test', scheme: 'http' } as MoveRunnerDeps['appsDomain'],
    routing: {
      syncRoutes: async (n: { name: string }) => void calls.push(`syncRoutes ${n.name}`),
      syncAllRoutes: async () => {
        calls.push('syncAllRoutes');
        return { nodes: 2 };
      },
    },
    domainCertificates,
    locks: new InProcessResourceLocks(),
    jobs,
    clock,
    logger: quiet,
  });
  /** An app of the workspace, deployed (current deployment live, a rollback image kept) and running unless said. */
  const addApp = (workspaceId: string, id: string, o: { desired?: 'running' | 'stopped'; busy?: boolean } = {}) => {
    store.apps.set(workspaceId, [...(store.apps.get(workspaceId) ?? []), { appId: id, deploymentId: `d-${id}`, imageRefs: [`slipway-app-${id}:d-old`, `slipway-app-${id}:d-${id}`], busy: o.busy ?? false }]);
    store.rows.find((w) => w.id === workspaceId)!.apps++;
    records.set(id, {
      id,
      workspaceId,
      name: id,
      kind: 'web',
      subdomain: `${id}-sub`,
      healthPath: null,
      cpuMillis: 250,
      memoryMb: 256,
      diskMb: 512,
      desiredState: o.desired ?? 'running',
      currentDeployment: { id: `d-${id}`, status: 'live', imageRef: `slipway-app-${id}:d-${id}`, port: 8080, containerId: `c-a-${id}`, hostPort: 30000 },
    } as unknown as AppWithDeployment);
  };
  const failRolloutOf = (id: string) => (failRollout = id);
  /** A live database of the workspace (running, public on `publicPort` when given). */
  const addDatabase = (workspaceId: string, id: string, o: { publicPort?: number; status?: string } = {}) => {
    const row = {
      id,
      workspaceId,
      nodeId: 'id-a',
      name: id,
      slug: id,
      engine: 'postgres',
      version: '15',
      cpuMillis: 250,
      memoryMb: 256,
      diskMb: 1024,
      username: 'app',
      databaseName: 'app',
      passwordSealed: `sealed:pw-${id}`,
      status: o.status ?? 'running',
      desiredState: 'running',
      generation: 1,
      statusMessage: null,
      publicEnabled: o.publicPort !== undefined,
      publicPort: o.publicPort ?? null,
      allowedCidrs: o.publicPort !== undefined ? ['203.0.113.0/24'] : [],
      deletedAt: null,
    } as unknown as DatabaseRecord;
    store.databases.set(workspaceId, [...(store.databases.get(workspaceId) ?? []), row]);
    store.rows.find((w) => w.id === workspaceId)!.databases++;
  };
  const failDatabaseStartOn = (name: string) => (failDatabaseOn = name);
  /** A custom domain of the workspace, its certificate stored on `server` when given (as that server's Caddy obtained it). */
  const addDomain = (workspaceId: string, hostname: string, server?: string) => {
    store.domains.set(workspaceId, [...(store.domains.get(workspaceId) ?? []), hostname]);
    if (server) storageOf(server).set(hostname, { hostname, issuerKey: 'acme.test-dir', certificatePem: `chain of ${hostname}`, keyPem: `key of ${hostname}`, metaJson: '{"sans":["' + hostname + '"]}' });
  };
  const failPreCopy = (databaseId: string) => (failPreCopyOf = databaseId);
  const failBackups = (databaseId: string) => (failBackupsOf = databaseId);
  const noData = (databaseId: string) => emptyData.add(databaseId);
  return { moves, store, nodes, queued, removed, calls, service, runner, addApp, failRolloutOf, addDatabase, failDatabaseStartOn, failPreCopy, failBackups, noData, signals, addDomain, storageOf, refuseCertificates: (why: string) => (certificatesRefused = why) };
}

/** A health check that the server of that name refuses. */
const refusing = (name: string) => async (n: string) => {
  if (n === name) throw new Error('connect ECONNREFUSED');
};

/** Runs `then` right after the step of that name is recorded (something changing while a move runs). */
function afterStep(moves: MemoryMoves, name: string, then: () => void): void {
  const append = moves.appendStep.bind(moves);
  moves.appendStep = async (id, s) => {
    await append(id, s);
    if (s.step === name) then();
  };
}

describe('moving a workspace (MoveService + MoveRunner)', () => {
  it('moves a workspace without apps or databases: checks the target, switches it, cleans the source; every step recorded', async () => {
    const f = fleet([ws('blue', 'id-a')]);
    const move = await f.service.request('blue', 'b');
    expect(move).toMatchObject({ state: 'queued', fromNode: 'a', toNode: 'b', reason: 'operator' });
    expect(f.queued).toEqual([{ name: 'workspace.move', payload: { moveId: move.id }, jobId: move.id }]);
    const ended = await f.runner.run(move.id);
    expect(ended).toMatchObject({ state: 'succeeded', error: null, attempts: 1 });
    expect(ended.steps.map((s) => `${s.step} ${s.outcome}`)).toEqual([
      'check done',
      'copy-images skipped',
      'copy-folders skipped',
      'copy-certificates skipped',
      'start-target skipped',
      'copy-backups skipped',
      'move-databases skipped',
      'switch done',
      'routes done',
      'stop-source skipped',
      'catch-up-folders skipped',
      'clean-source done',
    ]);
    expect(ended.steps.at(-1)!.sentence).toBe("Removed from a: 0 containers, 0 images, 1 network, 0 databases' data, 0 backup folders");
    expect(f.store.rows[0]!.nodeId).toBe('id-b');
    expect(f.removed).toEqual([{ node: 'a', workspaceId: 'ws-blue', appIds: ['old-app'] }]);
    // A job delivered again does nothing.
    expect((await f.runner.run(move.id)).steps).toHaveLength(12);
  });

  it('moves a workspace with apps: images and folders copied, the target started and ready before the source stops, then the switch, routes, catch-up, cleanup', async () => {
    const f = fleet([ws('apps', 'id-a')]);
    f.addApp('ws-apps', 'web1');
    f.addApp('ws-apps', 'idle', { desired: 'stopped' });
    const ended = await f.runner.run((await f.service.request('apps', 'b')).id);
    expect(ended).toMatchObject({ state: 'succeeded', error: null });
    expect(ended.steps.map((s) => `${s.step} ${s.outcome}`)).toEqual([
      'check done',
      'copy-images done',
      'copy-folders done',
      'copy-certificates skipped',
      'start-target done',
      'copy-backups skipped',
      'move-databases skipped',
      'switch done',
      'routes done',
      'stop-source done',
      'catch-up-folders done',
      'clean-source done',
    ]);
    expect(f.calls).toEqual([
      // One save for every app: shared layers cross once.
      'images a→b slipway-app-web1:d-old,slipway-app-web1:d-web1,slipway-app-idle:d-old,slipway-app-idle:d-idle',
      'folder a→b web1 slipway-app-web1:d-web1',
      'folder a→b idle slipway-app-idle:d-idle',
      // Only the app meant to run is started on the target, from its current image, with its route.
      'rollout b web1 slipway-app-web1:d-web1 web1-sub.apps.test',
      'syncRoutes b',
      'syncAllRoutes',
      'stop a web1 c-a-web1',
      'folder a→b web1 slipway-app-web1:d-web1',
      'folder a→b idle slipway-app-idle:d-idle',
    ]);
    expect(f.store.switched).toEqual([
      [
        { appId: 'web1', deploymentId: 'd-web1', containerId: 'c-b-web1', hostPort: 40000 },
        { appId: 'idle', deploymentId: 'd-idle', containerId: null, hostPort: null },
      ],
    ]);
    expect(ended.steps[1]!.sentence).toBe('4 images (current and rollback) of 2 apps copied to b: 2.0 MB');
    expect(f.removed).toEqual([{ node: 'a', workspaceId: 'ws-apps', appIds: ['old-app'] }]);
  });

  it("carries the custom domains' certificates into the target's storage before the switch, and removes them from the source's after it", async () => {
    const f = fleet([ws('shop', 'id-a')]);
    f.addApp('ws-shop', 'web1');
    f.addDomain('ws-shop', 'shop.example.test', 'a');
    f.addDomain('ws-shop', 'new.example.test');
    const ended = await f.runner.run((await f.service.request('shop', 'b')).id);
    expect(ended).toMatchObject({ state: 'succeeded', error: null });
    const step = (name: string) => ended.steps.find((s) => s.step === name)!;
    expect(step('copy-certificates')).toMatchObject({
      outcome: 'done',
      sentence: "1 custom-domain certificate copied into b's certificate storage (served and renewed there from the switch, no new order); none issued on a for new.example.test (b orders it)",
    });
    // Exported from the source and imported into the target before the target starts anything (and before the
    // switch makes it the owner), removed from the source only in its cleanup, after the routes moved.
    const certCalls = f.calls.filter((c) => /Certs|rollout|syncAllRoutes|stop a/.test(c));
    expect(certCalls).toEqual([
      'exportCerts a shop.example.test,new.example.test',
      'importCerts b shop.example.test',
      'rollout b web1 slipway-app-web1:d-web1 web1-sub.apps.test',
      'syncAllRoutes',
      'stop a web1 c-a-web1',
      'removeCerts a shop.example.test,new.example.test',
    ]);
    // The same entry (chain, key, metadata, issuer's folder) is in the target's storage; none is left on the source.
    expect(f.storageOf('b').get('shop.example.test')).toEqual({
      hostname: 'shop.example.test',
      issuerKey: 'acme.test-dir',
      certificatePem: 'chain of shop.example.test',
      keyPem: 'key of shop.example.test',
      metaJson: '{"sans":["shop.example.test"]}',
    });
    expect([...f.storageOf('a').keys()]).toEqual([]);
    expect(step('clean-source').sentence).toBe("Removed from a: 0 containers, 0 images, 1 network, 0 databases' data, 0 backup folders, 1 stored certificate");
  });

  it("moves the workspace all the same when its certificates cannot be carried (an older agent): the target orders its own, the step says why", async () => {
    const f = fleet([ws('shop', 'id-a')]);
    f.addApp('ws-shop', 'web1');
    f.addDomain('ws-shop', 'shop.example.test', 'a');
    f.refuseCertificates('12 UNIMPLEMENTED: The server does not implement the method ExportCertificates');
    const ended = await f.runner.run((await f.service.request('shop', 'b')).id);
    expect(ended).toMatchObject({ state: 'succeeded', error: null });
    expect(ended.steps.find((s) => s.step === 'copy-certificates')).toMatchObject({
      outcome: 'done',
      sentence: "The custom domains' certificates could not be read on a (12 UNIMPLEMENTED: The server does not implement the method ExportCertificates): b orders its own once it owns them",
    });
    expect([...f.storageOf('b').keys()]).toEqual([]);
  });

  it("removes the certificates it copied from the target when the move fails before the switch; the source keeps its own", async () => {
    const f = fleet([ws('shop', 'id-a')]);
    f.addApp('ws-shop', 'web1');
    f.addDomain('ws-shop', 'shop.example.test', 'a');
    f.failRolloutOf('web1');
    const ended = await f.runner.run((await f.service.request('shop', 'b')).id);
    expect(ended.state).toBe('failed');
    expect(ended.steps.map((s) => `${s.step} ${s.outcome}`)).toEqual(['check done', 'copy-images done', 'copy-folders done', 'copy-certificates done', 'start-target failed', 'copy-certificates undone', 'copy-images undone']);
    expect(f.calls.filter((c) => c.includes('Certs'))).toEqual(['exportCerts a shop.example.test', 'importCerts b shop.example.test', 'removeCerts b shop.example.test']);
    expect([...f.storageOf('b').keys()]).toEqual([]);
    expect([...f.storageOf('a').keys()]).toEqual(['shop.example.test']);
  });

  it('when the target cannot start an app, removes what the target got and leaves every app running on the source', async () => {
    const f = fleet([ws('apps', 'id-a')]);
    f.addApp('ws-apps', 'web1');
    f.addApp('ws-apps', 'web2');
    f.failRolloutOf('web2');
    const ended = await f.runner.run((await f.service.request('apps', 'b')).id);
    expect(ended.state).toBe('failed');
    expect(ended.error).toBe('start-target failed: The container never answered on its port; the workspace stays on its source server as it was');
    expect(ended.steps.map((s) => `${s.step} ${s.outcome}`)).toEqual(['check done', 'copy-images done', 'copy-folders done', 'copy-certificates skipped', 'start-target failed', 'copy-certificates undone', 'copy-images undone']);
    expect(f.calls.filter((c) => c.startsWith('stopDb'))).toEqual([]);
    // Nothing was stopped on the source; the target lost all it got.
    expect(f.calls.filter((c) => /^(stop|removeApp|syncAllRoutes)/.test(c))).toEqual(['removeApp b web1', 'removeApp b web2']);
    expect(f.store.rows[0]!.nodeId).toBe('id-a');
    expect(f.store.switched).toEqual([]);
  });

  it('moves databases: backups copied, then each one stopped on the source, its data copied and started on the target with its password, allowlist and public port; the source cleaned of both', async () => {
    const f = fleet([ws('data', 'id-a')]);
    f.addApp('ws-data', 'web1');
    f.addDatabase('ws-data', 'pg', { publicPort: 20001 });
    f.addDatabase('ws-data', 'cache');
    f.store.backups.set('ws-data', [{ databaseId: 'pg', backups: 2 }, { databaseId: 'gone', backups: 1 }]);
    const ended = await f.runner.run((await f.service.request('data', 'b')).id);
    expect(ended).toMatchObject({ state: 'succeeded', error: null });
    expect(ended.steps.map((s) => `${s.step} ${s.outcome}`)).toEqual([
      'check done',
      'copy-images done',
      'copy-folders done',
      'copy-certificates skipped',
      'start-target done',
      'copy-backups done',
      'move-databases done',
      'switch done',
      'routes done',
      'stop-source done',
      'catch-up-folders done',
      'clean-source done',
    ]);
    // The backups' copy and the databases' pre-copies begin with the images' copy, beside it and the apps' start.
    const first = (prefix: string) => f.calls.findIndex((c) => c.startsWith(prefix));
    expect(first('backups ')).toBeLessThan(first('rollout '));
    expect(first('data (live) ')).toBeLessThan(first('rollout '));
    expect(f.calls.filter((c) => c.startsWith('backups '))).toEqual(['backups a→b pg', 'backups a→b gone']);
    // Both pre-copied while they run: the whole folder, then passes of the changes until one is small, the target's
    // signature of what it holds before each (64 KiB blocks for a small folder).
    expect(f.calls.filter((c) => /^(data|signature|delta \(live\)) /.test(c))).toEqual([
      'data (live) a→b pg',
      'signature b pg 65536',
      'delta (live) a→b pg',
      'signature b pg 65536',
      'delta (live) a→b pg',
      'signature b pg 65536',
      'data (live) a→b cache',
      'signature b cache 65536',
      'delta (live) a→b cache',
      'signature b cache 65536',
      'delta (live) a→b cache',
      'signature b cache 65536',
    ]);
    // The apps are ready on the target before any database stops; each database stops only for its own final copy.
    expect(f.calls.slice(first('rollout '))).toEqual([
      'rollout b web1 slipway-app-web1:d-web1 web1-sub.apps.test',
      'stopDb a pg',
      'delta a→b pg',
      'ensureDb b pg pw-pg 20001 203.0.113.0/24 cert-id-b',
      'stopDb a cache',
      'delta a→b cache',
      'ensureDb b cache pw-cache private cert-id-b',
      'syncRoutes b',
      'syncAllRoutes',
      'stop a web1 c-a-web1',
      'folder a→b web1 slipway-app-web1:d-web1',
      'removeBackups a pg,gone,cache',
    ]);
    expect(f.store.switchedDatabases).toEqual([[{ databaseId: 'pg', publicPort: 20001 }, { databaseId: 'cache', publicPort: null }]]);
    // Owners see it on each app and database.
    expect(f.store.events).toEqual(["Moved with its workspace from server a to server b by the platform's operator"]);
    expect(ended.steps[0]!.sentence).toBe('b answers and can take the workspace (1 app, 2 databases, backups of 2 databases)');
    expect(ended.steps.find((st) => st.step === 'copy-backups')!.sentence).toMatch(/^3 backups of 2 databases copied to b: 6\.0 MB sent in \d+\.\d s$/);
    expect(ended.steps.find((st) => st.step === 'move-databases')!.sentence).toMatch(
      /^Stopped on a, copied and started on b with their credentials: pg \(postgres, pre-copied while it ran: 9\.0 MB \(3\.0 MB sent\) and 2 passes of its changes \(40\.0 MB, 2\.0 MB sent\) in 0\.\d s; stop 0\.\d s, final copy 0\.5 MB of changes sent 0\.\d s, ready 0\.\d s\); cache/,
    );
    expect(ended.steps.find((st) => st.step === 'routes')!.sentence).toMatch(/^2 servers route the workspace's apps to b; the databases were out of the apps' reach for \d+\.\d s \(from their stop on a\)$/);
    expect(ended.steps.at(-1)!.sentence).toBe("Removed from a: 0 containers, 0 images, 1 network, 2 databases' data, 3 backup folders");
  });

  it("keeps a database's public port when the target has it free, else takes the target's lowest free one and says so", async () => {
    const f = fleet([ws('data', 'id-a')]);
    f.addDatabase('ws-data', 'pg', { publicPort: 20000 });
    f.store.ports.set('id-b', [20000, 20001]);
    const ended = await f.runner.run((await f.service.request('data', 'b')).id);
    expect(ended.steps[0]!.sentence).toBe("b answers and can take the workspace (0 apps, 1 database, backups of 0 databases); pg's public port becomes 20002 (20000 is taken there)");
    expect(f.calls).toContain('ensureDb b pg pw-pg 20002 203.0.113.0/24 cert-id-b');
    expect(f.store.switchedDatabases).toEqual([[{ databaseId: 'pg', publicPort: 20002 }]]);
  });

  it('when a database does not start on the target, removes its copy there, starts it again on the source, and leaves everything on the source', async () => {
    const f = fleet([ws('data', 'id-a')]);
    f.addApp('ws-data', 'web1');
    f.addDatabase('ws-data', 'pg', { publicPort: 20001 });
    f.store.backups.set('ws-data', [{ databaseId: 'pg', backups: 1 }]);
    f.failDatabaseStartOn('b');
    const ended = await f.runner.run((await f.service.request('data', 'b')).id);
    expect(ended.state).toBe('failed');
    expect(ended.error).toBe(
      'move-databases failed: The engine did not accept an authenticated connection within 120 s; The databases run on a again; the workspace stays on its source server as it was',
    );
    expect(ended.steps.map((s) => `${s.step} ${s.outcome}`).slice(5)).toEqual(['copy-backups done', 'move-databases failed', 'copy-backups undone', 'copy-certificates undone', 'copy-images undone']);
    expect(f.calls.slice(f.calls.indexOf('stopDb a pg'))).toEqual([
      'stopDb a pg',
      'delta a→b pg',
      'ensureDb b pg pw-pg 20001 203.0.113.0/24 cert-id-b',
      'removeDb b pg',
      // Started again on the source as it was: its own port and certificate.
      'ensureDb a pg pw-pg 20001 203.0.113.0/24 cert-id-a',
      'removeBackups b pg',
      'removeApp b web1',
    ]);
    expect(f.store.rows[0]!.nodeId).toBe('id-a');
    expect(f.store.switched).toEqual([]);
  });

  it('when a pre-copy fails, no database was stopped: the copies on the target are removed and everything stays on the source', async () => {
    const f = fleet([ws('data', 'id-a')]);
    f.addApp('ws-data', 'web1');
    f.addDatabase('ws-data', 'pg');
    f.addDatabase('ws-data', 'cache');
    f.failPreCopy('cache');
    const ended = await f.runner.run((await f.service.request('data', 'b')).id);
    expect(ended.state).toBe('failed');
    expect(ended.error).toBe('move-databases failed: b did not answer (connect ECONNREFUSED); The databases run on a again; the workspace stays on its source server as it was');
    expect(f.calls.filter((c) => /^(stopDb|removeDb|ensureDb)/.test(c))).toEqual(['removeDb b cache', 'removeDb b pg']);
    expect(f.store.rows[0]!.nodeId).toBe('id-a');
    expect(f.store.switched).toEqual([]);
  });

  it('starts the apps on the target and copies their folders three at a time, and begins no more once one failed', async () => {
    const f = fleet([ws('many', 'id-a')]);
    for (let i = 1; i <= 7; i++) f.addApp('ws-many', `web${i}`);
    const deps = f.runner['deps'];
    const rollout = deps.agents.rolloutApp.bind(deps.agents);
    const copyFolder = deps.transfer.copyFolder.bind(deps.transfer);
    let now = 0;
    let most = 0;
    const counted = async <T>(work: () => Promise<T>): Promise<T> => {
      most = Math.max(most, ++now);
      await new Promise((r) => setTimeout(r, 5));
      now--;
      return work();
    };
    deps.agents.rolloutApp = (...a: Parameters<typeof rollout>) => counted(() => rollout(...a));
    deps.transfer.copyFolder = (...a: Parameters<typeof copyFolder>) => counted(() => copyFolder(...a));
    expect((await f.runner.run((await f.service.request('many', 'b')).id)).state).toBe('succeeded');
    expect(most).toBe(3);
    expect(f.calls.filter((c) => c.startsWith('rollout '))).toHaveLength(7);

    const g = fleet([ws('many', 'id-a')]);
    for (let i = 1; i <= 7; i++) g.addApp('ws-many', `web${i}`);
    g.failRolloutOf('web2');
    const ended = await g.runner.run((await g.service.request('many', 'b')).id);
    expect(ended.error).toBe('start-target failed: The container never answered on its port; the workspace stays on its source server as it was');
    // web1-web3 began together; after web2 failed none of web4-web7 was begun.
    expect(g.calls.filter((c) => c.startsWith('rollout ')).map((c) => c.split(' ')[2])).toEqual(['web1', 'web2', 'web3']);
  });

  it('when the target cannot start an app, removes the pre-copies and backups begun beside it too: no database was stopped, everything stays on the source', async () => {
    const f = fleet([ws('data', 'id-a')]);
    f.addApp('ws-data', 'web1');
    f.addDatabase('ws-data', 'pg');
    f.store.backups.set('ws-data', [{ databaseId: 'pg', backups: 1 }]);
    f.failRolloutOf('web1');
    const ended = await f.runner.run((await f.service.request('data', 'b')).id);
    expect(ended.error).toBe('start-target failed: The container never answered on its port; the workspace stays on its source server as it was');
    expect(ended.steps.map((s) => `${s.step} ${s.outcome}`)).toEqual([
      'check done',
      'copy-images done',
      'copy-folders done',
      'copy-certificates skipped',
      'start-target failed',
      'move-databases undone',
      'copy-backups undone',
      'copy-certificates undone',
      'copy-images undone',
    ]);
    // The pre-copy had reached the target (begun with the images): told to stop (a copy under way is cut), its copy
    // removed; nothing was stopped on the source.
    expect(f.calls).toContain('data (live) a→b pg');
    expect(f.signals.map((s) => s.aborted)).toEqual([true, true]);
    expect(f.calls.filter((c) => /^(stopDb|removeDb|ensureDb|removeBackups|removeApp)/.test(c))).toEqual(['removeDb b pg', 'removeBackups b pg', 'removeApp b web1']);
    expect(f.store.rows[0]!.nodeId).toBe('id-a');
  });

  it('when the backups cannot be copied, removes what reached the target and leaves everything on the source', async () => {
    const f = fleet([ws('data', 'id-a')]);
    f.addApp('ws-data', 'web1');
    f.addDatabase('ws-data', 'pg');
    f.store.backups.set('ws-data', [{ databaseId: 'pg', backups: 1 }, { databaseId: 'gone', backups: 1 }]);
    f.failBackups('gone');
    const ended = await f.runner.run((await f.service.request('data', 'b')).id);
    expect(ended.error).toBe('copy-backups failed: There is no room left on b for the backups; Removed the copied backups from b; the workspace stays on its source server as it was');
    expect(ended.steps.map((s) => `${s.step} ${s.outcome}`).slice(4)).toEqual(['start-target done', 'copy-backups failed', 'move-databases undone', 'copy-certificates undone', 'copy-images undone']);
    expect(f.calls.filter((c) => /^(stopDb|removeDb|ensureDb|removeBackups|removeApp)/.test(c))).toEqual(['removeBackups b pg,gone', 'removeDb b pg', 'removeApp b web1']);
    expect(f.store.rows[0]!.nodeId).toBe('id-a');
  });

  it('copies a database whose source has no data folder whole once it is stopped (nothing to make a delta against)', async () => {
    const f = fleet([ws('data', 'id-a')]);
    f.addDatabase('ws-data', 'pg');
    f.noData('pg');
    const ended = await f.runner.run((await f.service.request('data', 'b')).id);
    expect(ended.state).toBe('succeeded');
    expect(f.calls.filter((c) => /^(data|signature|delta|stopDb|ensureDb)/.test(c))).toEqual(['data (live) a→b pg', 'stopDb a pg', 'data a→b pg', 'ensureDb b pg pw-pg private cert-id-b']);
    expect(ended.steps.find((st) => st.step === 'move-databases')!.sentence).toMatch(/pg \(postgres, pre-copied while it ran: 0\.0 MB \(0\.0 MB sent\) in 0\.\d s; stop 0\.\d s, final copy 3\.0 MB sent 0\.\d s, ready 0\.\d s\)$/);
  });

  it('refuses, in words, a workspace whose database or app is being changed, or whose engine the target lacks, and leaves it on its source', async () => {
    const f = fleet([ws('db', 'id-a'), ws('deploying', 'id-a'), ws('mongo', 'id-a')], [node('a'), node('b', { databaseEngines: { engines: [{ engine: 'postgres', image: 'slipway/postgres:15', available: false, hint: 'docker load -i postgres.tar' }], at: clock() } })]);
    f.addDatabase('ws-db', 'pg', { status: 'restoring' });
    f.addApp('ws-deploying', 'web1', { busy: true });
    f.addDatabase('ws-mongo', 'pg2');
    const db = await f.runner.run((await f.service.request('db', 'b')).id);
    expect(db.error).toBe('check failed: A change of pg (restoring) is in progress; move the workspace once it has finished; the workspace stays on its source server as it was');
    const engine = await f.runner.run((await f.service.request('mongo', 'b')).id);
    expect(engine.error).toBe('check failed: b cannot run postgres: its image slipway/postgres:15 is not there (docker load -i postgres.tar); the workspace stays on its source server as it was');
    const busy = await f.runner.run((await f.service.request('deploying', 'b')).id);
    expect(busy.error).toMatch(/^check failed: A deployment of web1 is in progress; move the workspace once it has finished/);
    expect(f.store.rows.map((w) => w.nodeId)).toEqual(['id-a', 'id-a', 'id-a']);
    expect(f.removed).toEqual([]);
    expect(f.calls.filter((c) => c.startsWith('stopDb'))).toEqual([]);
  });

  it('fails when the target does not answer, leaving the workspace on its source', async () => {
    const f = fleet([ws('blue', 'id-a')], [node('a'), node('b')], refusing('b'));
    const ended = await f.runner.run((await f.service.request('blue', 'b')).id);
    expect(ended).toMatchObject({ state: 'failed', error: expect.stringContaining('b, the target, did not answer its health check (connect ECONNREFUSED)') });
    expect(f.store.rows[0]!.nodeId).toBe('id-a');
  });

  it('switches nothing when an app appeared meanwhile (the switch is conditional): nothing moves', async () => {
    const f = fleet([ws('blue', 'id-a')]);
    const move = await f.service.request('blue', 'b');
    afterStep(f.moves, 'check', () => (f.store.rows[0]!.apps = 1));
    const ended = await f.runner.run(move.id);
    expect(ended.state).toBe('failed');
    expect(ended.error).toMatch(/^switch failed: The workspace changed while it was being moved/);
    expect(f.store.rows[0]!.nodeId).toBe('id-a');
  });

  it('refuses a target that is the source, cordoned, offline or unknown, and a workspace that does not exist', async () => {
    const f = fleet([ws('blue', 'id-a')], [node('a'), node('b', { cordonedAt: clock() }), node('c', { status: 'offline' })]);
    await expect(f.service.request('blue', 'a')).rejects.toMatchObject({ code: 'invalid_state', message: 'The workspace is already on a' });
    await expect(f.service.request('blue', 'b')).rejects.toMatchObject({ code: 'invalid_state', message: 'b is cordoned: it takes no workspace (uncordon it first)' });
    await expect(f.service.request('blue', 'c')).rejects.toMatchObject({ code: 'invalid_state', message: 'c is offline' });
    await expect(f.service.request('blue', 'zz')).rejects.toMatchObject({ code: 'not_found' });
    await expect(f.service.request('nope', 'a')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('the last intent wins: a new move cancels the queued one; cancelling a queued move ends it at once', async () => {
    const f = fleet([ws('blue', 'id-a')], [node('a'), node('b'), node('c')]);
    const first = await f.service.request('blue', 'b');
    const second = await f.service.request('blue', 'c');
    expect(await f.moves.get(first.id)).toMatchObject({ state: 'cancelled', error: 'Replaced by a newer move to c' });
    expect((await f.runner.run(first.id)).state).toBe('cancelled');
    const cancelled = await f.service.cancel(second.id);
    expect(cancelled).toMatchObject({ state: 'cancelled', error: 'Cancelled before it started' });
    await expect(f.service.cancel(second.id)).rejects.toMatchObject({ code: 'invalid_state' });
    expect(f.store.rows[0]!.nodeId).toBe('id-a');
  });

  it('a running move asked to stop stops before its next step and undoes what it did', async () => {
    const f = fleet([ws('blue', 'id-a')]);
    const move = await f.service.request('blue', 'b');
    f.runner['deps'].agents.health = async () => {
      await f.service.cancel(move.id);
    };
    const ended = await f.runner.run(move.id);
    expect(ended).toMatchObject({ state: 'cancelled', error: 'Cancelled before copy-images; the workspace stays on its source server' });
    expect(f.store.rows[0]!.nodeId).toBe('id-a');
  });

  it('a job delivered again after its worker died past the switch only finishes the cleanup', async () => {
    const f = fleet([ws('blue', 'id-a')]);
    const move = await f.service.request('blue', 'b');
    // The first try switched, then its worker died before cleaning the source.
    const row = f.moves.rows[0]!;
    row.state = 'running';
    row.steps.push({ step: 'switch', outcome: 'done', sentence: 'The workspace is on b now', at: clock().toISOString() });
    f.store.rows[0]!.nodeId = 'id-b';
    const ended = await f.runner.run(move.id);
    expect(ended.state).toBe('succeeded');
    expect(ended.steps.slice(1).map((s) => `${s.step} ${s.outcome}`)).toEqual([
      'check skipped',
      'copy-images skipped',
      'copy-folders skipped',
      'copy-certificates skipped',
      'start-target skipped',
      'copy-backups skipped',
      'move-databases skipped',
      'switch skipped',
      'routes done',
      'stop-source skipped',
      'catch-up-folders skipped',
      'clean-source done',
    ]);
  });

  it('drains a server: cordons it, plans every workspace onto the roomiest other server, runs the moves one at a time', async () => {
    const nodes = [node('a'), node('b', { memoryMb: 900 }), node('c', { memoryMb: 700 })];
    const f = fleet([ws('one', 'id-a'), ws('two', 'id-a'), ws('three', 'id-a', { reserved: { cpuMillis: 100, memoryMb: 4000, diskMb: 0 } }), ws('elsewhere', 'id-b')], nodes);
    const plan = await f.service.drain('a');
    expect(nodes[0]!.cordonedAt).toEqual(clock());
    // b has the most free memory first; once `one` counts on it, c does.
    expect(plan.moves.map((m) => `${m.workspaceSlug}→${m.toNode}`)).toEqual(['one→b', 'two→c']);
    expect(plan.unplaced).toEqual([{ workspace: 'three', reason: 'No other server has room: it needs 4000 MB of memory and the roomiest has 644 MB free' }]);
    expect(f.queued.map((q) => q.jobId)).toEqual([plan.moves[0]!.id]);
    await f.runner.run(plan.moves[0]!.id);
    expect(f.queued.map((q) => q.jobId)).toEqual([plan.moves[0]!.id, plan.moves[1]!.id]);
    await f.runner.run(plan.moves[1]!.id);
    expect(f.store.rows.map((w) => `${w.slug}@${w.nodeId}`)).toEqual(['one@id-b', 'two@id-c', 'three@id-a', 'elsewhere@id-b']);
    expect(f.store.events[0]).toBe("Moved with its workspace from server a to server b (a is being emptied by the platform's operator)");
    // Draining again queues nothing twice.
    expect((await f.service.drain('a')).moves).toEqual([]);
  });

  it('a drain with nowhere to go says so in words', async () => {
    const f = fleet([ws('one', 'id-a')], [node('a'), node('b', { cordonedAt: clock() })]);
    expect((await f.service.drain('a')).unplaced).toEqual([
      { workspace: 'one', reason: 'No server is open to new workspaces: the only online server is cordoned by the operator (it takes no new workspace)' },
    ]);
  });

  it('a move whose job failed for good ends failed with the reason, and a drain goes on with its next move', async () => {
    const f = fleet([ws('one', 'id-a'), ws('two', 'id-a')]);
    const plan = await f.service.drain('a');
    await f.runner.failedForGood(plan.moves[0]!.id, 'The workspace ws-one stayed busy for 300 s');
    expect(await f.moves.get(plan.moves[0]!.id)).toMatchObject({ state: 'failed', error: 'The workspace ws-one stayed busy for 300 s' });
    expect(f.queued.map((q) => q.jobId)).toEqual([plan.moves[0]!.id, plan.moves[1]!.id]);
  });
});
