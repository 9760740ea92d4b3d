import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import net from 'node:net';
import { createInterface } from 'node:readline';
import { plainRequest } from '../plain-http';
import { SYSTEM_PATH } from '../storage/run';

/**
 * When a started container counts as ready. An HTTP or TCP probe runs inside the container's own network namespace against
 * its network address (not 127.0.0.1 there, so an app listening on its loopback only fails as Caddy would see it),
 * and the container must then keep running and answering for `settleMs` without an exit or a restart.
 */
export interface Readiness {
  /** What to ask the container, or null (a worker: nothing to ask, it only has to keep running). */
  probe: Probe | null;
  /** How long the container has to give its first answer. */
  timeoutMs: number;
  /** How long it must then keep running and answering before it counts as ready. */
  settleMs: number;
  /** Who is judged, for the messages ("The app", "The postgres engine"; default "The app"). */
  subject?: string;
  /**
   * The port published on 127.0.0.1 (0: none). An HTTP probe is asked once more through it before the container
   * counts as ready: that is the way Caddy reaches it.
   */
  hostPort: number;
}

/**
 * `http`: any HTTP response (any status) to `GET /` when `healthPath` is empty, else 2xx/3xx to `GET healthPath` —
 * a TCP accept is not enough, so a process that listens but does not speak HTTP (or hangs) is not ready.
 * `tcp`: the port accepts a connection (databases and other non-HTTP workloads; inside the namespace no proxy can
 * accept in the app's place).
 */
export type Probe = { kind: 'http'; port: number; healthPath: string } | { kind: 'tcp'; port: number } | ExecProbe;

/**
 * `exec`: a command run inside the container (an engine's own client: `psql … SELECT 1`, `redis-cli PING`) exits 0
 * and, when `ok` is given, its output passes it. Secrets go in `env` or `stdin`, never on the command line.
 */
export interface ExecProbe {
  kind: 'exec';
  cmd: string[];
  env?: Record<string, string>;
  stdin?: string;
  ok?: (stdout: string) => boolean;
}

export interface ProbeAnswer {
  ok: boolean;
  /** e.g. "HTTP 200", "ECONNREFUSED", "timed out after 2 s" */
  detail: string;
}

/** A free TCP port on 127.0.0.1, for a container's fixed host port. */
export function freeHostPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

// The probe process: Node's own runtime entered into the container's network namespace. One request per input line
// (JSON), one JSON answer line per request; it targets the first non-loopback IPv4 of the namespace.
const PROBE_SCRIPT = `
const http = require('node:http'), net = require('node:net'), os = require('node:os');
const address = () => {
  for (const list of Object.values(os.networkInterfaces())) for (const a of list || []) if (!a.internal && a.family === 'IPv4') return a.address;
  return null;
};
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const q = JSON.parse(line);
  let sent = false;
  const reply = (ok, detail) => { if (!sent) { sent = true; process.stdout.write(JSON.stringify({ id: q.id, ok, detail }) + '\\n'); } };
  const host = address();
  if (!host) return reply(false, 'the container has no network address');
  const late = setTimeout(() => { reply(false, 'no answer within ' + q.timeoutMs + ' ms'); socket && socket.destroy(); }, q.timeoutMs);
  const done = (ok, detail) => { clearTimeout(late); reply(ok, detail); };
  let socket = null;
  if (q.kind === 'tcp') {
    socket = net.connect({ host, port: q.port });
    socket.once('connect', () => { socket.destroy(); done(true, 'accepted a connection'); });
    socket.once('error', (e) => done(false, e.code || e.message));
    return;
  }
  const req = http.get({ host, port: q.port, path: q.path || '/', agent: false, headers: { 'user-agent': 'slipway-readiness' } }, (res) => {
    res.resume();
    const ok = !q.path || (res.statusCode >= 200 && res.statusCode < 400);
    done(ok, 'HTTP ' + res.statusCode);
    req.destroy();
  });
  req.on('socket', (s) => { socket = s; });
  req.on('error', (e) => done(false, e.code || e.message));
});
`;

/**
 * A probe process living in a container's network namespace (`nsenter --target <pid> --net`, which needs the root
 * the agent runs as) for the length of one readiness check. The namespace is the one of the container's first
 * process: should the container restart, the probe keeps asking a namespace nothing listens in — a restart is a
 * failure anyway.
 */
export class NamespaceProbe {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending = new Map<number, (a: ProbeAnswer) => void>();
  private next = 1;
  private exited: string | null = null;

  private constructor(pid: number) {
    this.child = spawn('nsenter', ['--target', String(pid), '--net', '--', process.execPath, '-e', PROBE_SCRIPT], {
      env: { PATH: SYSTEM_PATH },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    this.child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-500)));
    this.child.on('error', (e) => this.fail(`the probe could not start: ${e.message}`));
    this.child.on('close', (code) => this.fail(`the probe exited (${code}): ${stderr.trim() || 'no output'}`));
    this.child.stdin.on('error', () => undefined);
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      const a = JSON.parse(line) as ProbeAnswer & { id: number };
      this.pending.get(a.id)?.({ ok: a.ok, detail: a.detail });
      this.pending.delete(a.id);
    });
  }

  static enter(pid: number): NamespaceProbe {
    return new NamespaceProbe(pid);
  }

  ask(probe: Exclude<Probe, ExecProbe>, timeoutMs: number): Promise<ProbeAnswer> {
    if (this.exited) return Promise.resolve({ ok: false, detail: this.exited });
    const id = this.next++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      const path = probe.kind === 'http' ? probe.healthPath : '';
      this.child.stdin.write(`${JSON.stringify({ id, kind: probe.kind, port: probe.port, path, timeoutMs })}\n`);
    });
  }

  close(): void {
    this.child.stdin.end();
    this.child.kill();
  }

  private fail(reason: string): void {
    this.exited ??= reason;
    for (const resolve of this.pending.values()) resolve({ ok: false, detail: reason });
    this.pending.clear();
  }
}

/**
 * The same HTTP question through the port published on 127.0.0.1, the way Caddy reaches the app. A real HTTP
 * response is required: Docker's userland proxy accepts TCP on that port even when nothing answers behind it.
 */
export async function answersOnHostPort(hostPort: number, healthPath: string, timeoutMs: number): Promise<ProbeAnswer> {
  try {
    // A redirect is an answer (not followed), as for the probe inside the container.
    const res = await plainRequest(`http://127.0.0.1:${hostPort}${healthPath || '/'}`, { timeoutMs, statusOnly: true });
    const ok = !healthPath || (res.status >= 200 && res.status < 400);
    return { ok, detail: `HTTP ${res.status}` };
  } catch (e) {
    return { ok: false, detail: (e as NodeJS.ErrnoException).code ?? (e as Error).message };
  }
}
