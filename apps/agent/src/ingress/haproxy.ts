// The app routes of this server in HAProxy's map (decision 0040): a host → upstream entry changed through the runtime
// API in constant time (no reload, whatever the number of routes), the map file rewritten for HAProxy's next start.
// HAProxy itself runs with deploy/haproxy/haproxy.cfg (started by deploy/lib/services.sh); this agent owns its map.
import net from 'node:net';
import path from 'node:path';
import { rename, writeFile } from 'node:fs/promises';

/** Window backends of deploy/haproxy/haproxy.cfg (`w0`…`w15`): settle windows open at once with a warm previous release. */
export const WINDOW_BACKENDS = 16;

/** What a map key may be: an app's host (a DNS name), never anything a runtime-API command could read otherwise. */
const HOST = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

export class HaproxyError extends Error {}

/** One runtime-API command on HAProxy's admin socket (non-interactive: HAProxy answers and closes); its answer, trimmed. */
export function haproxyCommand(socket: string, line: string, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = net.connect(socket);
    let out = '';
    c.setTimeout(timeoutMs, () => c.destroy(new HaproxyError(`HAProxy did not answer "${line.split(' ').slice(0, 2).join(' ')}" within ${timeoutMs} ms`)));
    c.on('connect', () => c.end(`${line}\n`));
    c.on('data', (d: Buffer) => (out += d.toString()));
    c.on('end', () => resolve(out.trim()));
    c.on('error', (e: Error) => reject(e instanceof HaproxyError ? e : new HaproxyError(`HAProxy's runtime API (${socket}) is not reachable: ${e.message}`)));
  });
}

/** What a route's map entry says: its upstream port, or the window backend holding its new and previous release. */
export type MapValue = `${number}` | `w${number}`;

/**
 * HAProxy's runtime map of this server (`<dir>/ingress.map`, the admin socket `<dir>/admin.sock`), and the window
 * backends whose servers' addresses are set at runtime. Every call is one or a few runtime-API commands: what a change
 * costs does not depend on how many routes there are. The callers (CaddyIngress) serialise the calls.
 */
export class HaproxyMap {
  readonly socket: string;
  readonly mapFile: string;
  /** The socket of the `own` frontend (this server's own apps only): the mesh listener's upstream. */
  readonly ownSocket: string;
  /** The worker process the window backends were set in: another one (a restart, a reload) lost them. */
  private worker: string | null = null;

  constructor(readonly dir: string) {
    this.socket = path.join(dir, 'admin.sock');
    this.mapFile = path.join(dir, 'ingress.map');
    this.ownSocket = path.join(dir, 'own.sock');
  }

  command(line: string): Promise<string> {
    return haproxyCommand(this.socket, line);
  }

  /** Sets `host`'s entry (added when missing). */
  async set(host: string, value: MapValue): Promise<void> {
    checkHost(host);
    const out = await this.command(`set map ${this.mapFile} ${host} ${value}`);
    if (!out) return;
    if (!/not found/i.test(out)) throw new HaproxyError(`HAProxy refused the route of ${host}: ${out}`);
    const added = await this.command(`add map ${this.mapFile} ${host} ${value}`);
    if (added) throw new HaproxyError(`HAProxy refused the route of ${host}: ${added}`);
  }

  /** Removes `host`'s entry; nothing to remove is fine. */
  async del(host: string): Promise<void> {
    checkHost(host);
    const out = await this.command(`del map ${this.mapFile} ${host}`);
    if (out && !/not found/i.test(out)) throw new HaproxyError(`HAProxy refused to remove the route of ${host}: ${out}`);
  }

  /** The map as HAProxy holds it now: host → value. */
  async entries(): Promise<Map<string, string>> {
    const out = await this.command(`show map ${this.mapFile}`);
    if (/unknown map|not found/i.test(out)) throw new HaproxyError(`HAProxy has no map ${this.mapFile}: ${out}`);
    const entries = new Map<string, string>();
    for (const line of out.split('\n')) {
      const [, key, value] = line.trim().split(/\s+/);
      if (key && value) entries.set(key, value);
    }
    return entries;
  }

  /**
   * How many entries HAProxy's map holds now, from its list of maps (a line, whatever the number of routes); null when
   * this HAProxy does not say (before 2.4, no `entry_cnt`).
   */
  async count(): Promise<number | null> {
    const out = await this.command('show map');
    const line = out.split('\n').find((l) => l.includes(`(${this.mapFile})`));
    const count = line && /\bentry_cnt=(\d+)/.exec(line)?.[1];
    return count ? Number(count) : null;
  }

  /** Points window backend `w<n>` at the new release (first) and the previous one (behind it), both in service. */
  async openWindow(n: number, port: number, previousPort: number): Promise<void> {
    for (const line of [
      `set server w${n}/new addr 127.0.0.1 port ${port}`,
      `set server w${n}/prev addr 127.0.0.1 port ${previousPort}`,
      `set server w${n}/new state ready`,
      `set server w${n}/prev state ready`,
      // A window backend used before may hold its last `new` as down: this one answered before its route moved.
      `set server w${n}/new health up`,
      `set server w${n}/prev health up`,
    ]) {
      const out = await this.command(line);
      if (out && !/no need to change|changed from/i.test(out)) throw new HaproxyError(`HAProxy refused "${line}": ${out}`);
    }
  }

  /** Takes window backend `w<n>`'s servers out of service (its host no longer maps to it). */
  async closeWindow(n: number): Promise<void> {
    for (const line of [`set server w${n}/new state maint`, `set server w${n}/prev state maint`]) {
      const out = await this.command(line);
      if (out) throw new HaproxyError(`HAProxy refused "${line}": ${out}`);
    }
  }

  /** Whether the HAProxy worker changed since the last call (a restart or reload: runtime server settings are lost). */
  async workerChanged(): Promise<boolean> {
    const info = await this.command('show info');
    const pid = /^Pid:\s*(\d+)/m.exec(info)?.[1] ?? '';
    const changed = this.worker !== null && pid !== this.worker;
    this.worker = pid;
    return changed;
  }

  /** Rewrites the map file (what HAProxy loads at its next start) from `entries`, through a temporary file and a rename. */
  async save(entries: Iterable<[string, MapValue | string]>): Promise<void> {
    let text = '';
    for (const [host, value] of entries) text += `${host} ${value}\n`;
    const tmp = `${this.mapFile}.tmp`;
    await writeFile(tmp, text, { mode: 0o644 });
    await rename(tmp, this.mapFile);
  }
}

function checkHost(host: string): void {
  if (host.length > 253 || !HOST.test(host)) throw new HaproxyError(`"${host}" is not a host name HAProxy's map can hold`);
}
