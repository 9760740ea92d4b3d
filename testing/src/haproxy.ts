// HAProxy for tests and benchmarks (decision 0040). `startTestHaproxy`: a HAProxy of a test's own in front of Caddy,
// the product's config (deploy/haproxy/haproxy.cfg) in master-worker mode on a free loopback port, its folder (admin
// socket, own socket, map file) in a temporary folder, hosts it does not hold sent to a Caddy HTTP listener (the
// machine's shared one by default, read only). The machine's own ingress port is never taken. `spawnHaProxy`: any
// config in the foreground (bench/ingress). Needs Debian's `haproxy` (2.6).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './acme';
import { TEST_SERVICES } from './services';

const CONFIG = path.resolve(__dirname, '../../deploy/haproxy/haproxy.cfg');

export interface TestHaproxy {
  /** SLIPWAY_HAPROXY_DIR of the agent using it. */
  dir: string;
  /** Its ingress port on 127.0.0.1. */
  port: number;
  /** One runtime-API command; HAProxy's answer, trimmed. */
  command(line: string): Promise<string>;
  /** Stops HAProxy and starts it again from the map file (what a crash and its supervisor's restart do). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The ingress the tests run with (SLIPWAY_TEST_INGRESS): `haproxy` (the default, as deploy/setup.sh's: each test agent
 * gets its own HAProxy in front of Caddy) or `caddy` (Caddy alone, every app route a route of its config).
 */
export const TEST_INGRESS = testIngress(process.env.SLIPWAY_TEST_INGRESS);
/** Whether this run tests the ingress with HAProxy in front (the default; SLIPWAY_TEST_INGRESS=caddy: Caddy alone). */
export const TEST_INGRESS_HAPROXY = TEST_INGRESS === 'haproxy';

function testIngress(value: string | undefined): 'haproxy' | 'caddy' {
  if (value === undefined || value === '' || value === 'haproxy') return 'haproxy';
  if (value === 'caddy') return 'caddy';
  throw new Error(`SLIPWAY_TEST_INGRESS is "${value}": it is "haproxy" (the default) or "caddy"`);
}

/** One runtime-API command on a HAProxy admin socket; its answer, trimmed. */
export function haproxyCommand(socket: string, line: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const c = net.connect(socket);
    let out = '';
    c.on('connect', () => c.end(`${line}\n`));
    c.on('data', (d: Buffer) => (out += d.toString()));
    c.on('end', () => resolve(out.trim()));
    c.on('error', reject);
  });
}

export interface HaProxyProcess {
  proc: ChildProcess;
  /** One runtime-API command on the admin socket; HAProxy's answer, trimmed. */
  command(line: string): Promise<string>;
}

/**
 * Starts `binary` in the foreground (master-worker, `-W -db`: the caller owns the process) with `configFile` (which
 * names `socket` as its admin socket) and `env`, and waits until the runtime API answers.
 */
export async function spawnHaProxy(binary: string, configFile: string, socket: string, env: NodeJS.ProcessEnv = process.env): Promise<HaProxyProcess> {
  const proc = spawn(binary, ['-W', '-db', '-f', configFile], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  proc.stderr!.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-4000)));
  const command = (line: string) => haproxyCommand(socket, line);
  for (let i = 0; ; i++) {
    if (await command('show info').then((out) => /^Pid:/m.test(out), () => false)) break;
    if (i > 100 || proc.exitCode !== null) {
      proc.kill('SIGKILL');
      throw new Error(`HAProxy did not start: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { proc, command };
}

/**
 * Where the machine's Caddy serves plain HTTP: its `ingress` server's listener (127.0.0.1:8079 behind the machine's
 * own HAProxy, deploy/lib/services.sh), else the ingress port.
 */
export async function machineCaddyHttpAddress(): Promise<string> {
  const fallback = `127.0.0.1:${TEST_SERVICES.ingressPort}`;
  try {
    const res = await fetch(`${TEST_SERVICES.caddyAdminUrl}/config/apps/http/servers/ingress/listen`, { signal: AbortSignal.timeout(5_000) });
    const listen = res.ok ? ((await res.json()) as string[] | null) : null;
    const first = listen?.[0];
    if (!first) return fallback;
    const port = first.slice(first.lastIndexOf(':') + 1);
    const host = first.slice(0, first.lastIndexOf(':'));
    return `${host && host !== '0.0.0.0' && host !== '[::]' ? host : '127.0.0.1'}:${port}`;
  } catch {
    return fallback;
  }
}

export async function startTestHaproxy(o: { caddyHttpAddress?: string; map?: string } = {}): Promise<TestHaproxy> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-haproxy-'));
  await writeFile(path.join(dir, 'ingress.map'), o.map ?? '');
  const port = await freePort();
  const socket = path.join(dir, 'admin.sock');
  const env = {
    ...process.env,
    SLIPWAY_HAPROXY_DIR: dir,
    SLIPWAY_INGRESS_HTTP_ADDRESS: '127.0.0.1',
    SLIPWAY_INGRESS_HTTP_PORT: String(port),
    SLIPWAY_CADDY_HTTP_ADDRESS: o.caddyHttpAddress ?? (await machineCaddyHttpAddress()),
  };
  let proc: ChildProcess;
  const start = async () => {
    ({ proc } = await spawnHaProxy('haproxy', CONFIG, socket, env));
  };
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM');
      await once(proc, 'exit');
    }
  };
  await start().catch(async (e: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw e;
  });
  return {
    dir,
    port,
    command: (line) => haproxyCommand(socket, line),
    async restart() {
      await stop();
      await start();
    },
    async stop() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
