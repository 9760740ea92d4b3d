// A HAProxy of a test's own in front of Caddy (decision 0040): the product's config (deploy/haproxy/haproxy.cfg) in
// master-worker mode on a free loopback port, its folder (admin socket, own socket, map file) in a temporary folder,
// hosts it does not hold sent to a Caddy HTTP listener (the machine's shared one by default, read only). The machine's
// own :80 is never taken. Needs Debian's `haproxy` (2.6).
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

/** Whether this run tests the ingress with HAProxy in front (SLIPWAY_TEST_INGRESS=haproxy; default: Caddy alone). */
export const TEST_INGRESS_HAPROXY = process.env.SLIPWAY_TEST_INGRESS === 'haproxy';

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
    SLIPWAY_CADDY_HTTP_ADDRESS: o.caddyHttpAddress ?? `127.0.0.1:${TEST_SERVICES.ingressPort}`,
  };
  const command = (line: string) =>
    new Promise<string>((resolve, reject) => {
      const c = net.connect(socket);
      let out = '';
      c.on('connect', () => c.end(`${line}\n`));
      c.on('data', (d: Buffer) => (out += d.toString()));
      c.on('end', () => resolve(out.trim()));
      c.on('error', reject);
    });
  let proc: ChildProcess;
  const start = async () => {
    // Foreground master-worker (-W -db): the test owns the process.
    proc = spawn('haproxy', ['-W', '-db', '-f', CONFIG], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    proc.stderr!.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-4000)));
    for (let i = 0; ; i++) {
      if (await command('show info').then((out) => /^Pid:/m.test(out), () => false)) break;
      if (i > 100 || proc.exitCode !== null) throw new Error(`HAProxy did not start: ${log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM');
      await once(proc, 'exit');
    }
  };
  await start();
  return {
    dir,
    port,
    command,
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
