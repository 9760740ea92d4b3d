// A HAProxy process for the bench (Debian's `haproxy`, or `--haproxy BINARY`) and its runtime API.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';

export interface HaProxyProcess {
  proc: ChildProcess;
  /** One runtime-API command on the admin socket; HAProxy's answer, trimmed. */
  command(line: string): Promise<string>;
}

/**
 * Starts `binary` in the foreground (master-worker, as deploy/lib/services.sh runs it) with `configFile` (which names
 * `socket` as its admin socket) and `env`, and waits for the socket.
 */
export async function spawnHaProxy(binary: string, configFile: string, socket: string, env: NodeJS.ProcessEnv = process.env): Promise<HaProxyProcess> {
  const proc = spawn(binary, ['-W', '-db', '-f', configFile], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  proc.stderr!.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-4000)));
  const command = (line: string) =>
    new Promise<string>((resolve, reject) => {
      const c = net.connect(socket);
      let out = '';
      c.on('connect', () => c.end(`${line}\n`));
      c.on('data', (d: Buffer) => (out += d.toString()));
      c.on('end', () => resolve(out.trim()));
      c.on('error', reject);
    });
  for (let i = 0; ; i++) {
    if (await command('show info').then((out) => /^Pid:/m.test(out), () => false)) break;
    if (i > 100 || proc.exitCode !== null) throw new Error(`HAProxy did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { proc, command };
}
