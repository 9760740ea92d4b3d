// The prototype of a route table Caddy reads per request (issue 34 item 2, docs/decisions/0040-ingress-route-table.md):
// a DNS server on loopback that answers, for each routed host, SRV records whose ports are the host's upstreams (the
// new release first, a warm previous one behind it), and an A record 127.0.0.1 for the SRV target. Caddy's standard
// `dynamic_upstreams` (`srv`, name `{http.request.host}.`) asks it when its cached answer for a host is older than
// `refresh`; a route change is a Map write here, whatever the number of routes, and Caddy's config never changes.
import dgram from 'node:dgram';
import { once } from 'node:events';
import * as dnsPacket from 'dns-packet';

/** The SRV target of every answer; its A record is 127.0.0.1 (Caddy dials it through the same resolver). */
export const UPSTREAM_TARGET = 'upstream.slipway.internal';
const NXDOMAIN = 3;

export class RouteDns {
  private readonly table = new Map<string, number[]>();
  private socket: dgram.Socket | null = null;
  queries = 0;

  /** Routes `host` to `ports` (in order: the first is tried first). */
  set(host: string, ports: number[]): void {
    this.table.set(host.toLowerCase(), ports);
  }

  delete(host: string): void {
    this.table.delete(host.toLowerCase());
  }

  entries(): [string, number[]][] {
    return [...this.table];
  }

  get size(): number {
    return this.table.size;
  }

  async listen(port: number, address = '127.0.0.1'): Promise<number> {
    const socket = dgram.createSocket('udp4');
    socket.on('message', (msg, rinfo) => {
      const answer = this.answer(msg);
      if (answer) socket.send(answer, rinfo.port, rinfo.address);
    });
    socket.bind(port, address);
    await once(socket, 'listening');
    this.socket = socket;
    return socket.address().port;
  }

  async close(): Promise<void> {
    const s = this.socket;
    this.socket = null;
    if (s) await new Promise<void>((r) => s.close(() => r()));
  }

  private answer(msg: Buffer): Buffer | null {
    let query: dnsPacket.Packet;
    try {
      query = dnsPacket.decode(msg);
    } catch {
      return null;
    }
    const q = query.questions?.[0];
    if (!q) return null;
    this.queries++;
    const name = q.name.toLowerCase().replace(/\.$/, '');
    const answers: dnsPacket.Answer[] = [];
    let known = true;
    if (name === UPSTREAM_TARGET) {
      if (q.type === 'A') answers.push({ type: 'A', name: q.name, ttl: 0, data: '127.0.0.1' });
    } else {
      const ports = this.table.get(name);
      if (!ports) known = false;
      else if (q.type === 'SRV') ports.forEach((port, i) => answers.push({ type: 'SRV', name: q.name, ttl: 0, data: { priority: i, weight: 0, port, target: UPSTREAM_TARGET } }));
    }
    // Authoritative (Go's resolver treats a non-authoritative empty answer as a lame referral); NXDOMAIN for an unknown host.
    return dnsPacket.encode({
      id: query.id,
      type: 'response',
      flags: dnsPacket.AUTHORITATIVE_ANSWER | ((query.flags ?? 0) & dnsPacket.RECURSION_DESIRED) | (known ? 0 : NXDOMAIN),
      questions: query.questions,
      answers,
    });
  }
}
