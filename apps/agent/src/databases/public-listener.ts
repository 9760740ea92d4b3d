import net from 'node:net';
import type { Logger } from '@slipway/core';
import { allowlist } from '@slipway/contracts';
import type { PublicGuard } from './engines';

/**
 * A database's public port: an agent-side TCP listener (dual stack) that checks the peer's address against the
 * allowlist BEFORE reading or sending a byte (a peer outside is reset at once), then makes sure the client starts
 * TLS (the engine does the TLS itself: PostgreSQL and MySQL negotiate it inside their protocol), then pipes to the
 * container on the workspace network. No Docker published port, no iptables: a listener is easy to test and its
 * allowlist changes apply to the next connection at once.
 *
 * The TLS guard per protocol (`tlsGuard`, pure, unit-tested):
 *   - postgres: the first client message must be an SSLRequest (or a direct TLS ClientHello, PostgreSQL 17); a
 *     GSSENCRequest is answered "N" here so the client goes on to SSL; anything else (a StartupMessage) is cut.
 *   - mysql: the server speaks first (its greeting is forwarded); the client's first packet must carry the
 *     CLIENT_SSL capability (an SSLRequest), else it is cut before it reaches the server.
 *   - tls (redis, mongodb): the first byte must be a TLS handshake record (0x16).
 */
export interface PublicTarget {
  host: string;
  port: number;
}

export interface PublicListenerSpec {
  port: number;
  allowedCidrs: string[];
  guard: PublicGuard;
  /** Where the engine is now (the container's address can change when it is recreated). */
  target: () => Promise<PublicTarget>;
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CLIENT_SSL = 0x800;
const FIRST_MESSAGE_MS = 10_000;

export type GuardVerdict = { verdict: 'more' } | { verdict: 'pass' } | { verdict: 'refuse' } | { verdict: 'reply'; reply: Buffer; consumed: number };

/** What to do with the bytes a client sent first. */
export function tlsGuard(guard: PublicGuard, head: Buffer): GuardVerdict {
  if (guard === 'tls') return head.length < 1 ? { verdict: 'more' } : head[0] === 0x16 ? { verdict: 'pass' } : { verdict: 'refuse' };
  if (guard === 'postgres') {
    if (head.length >= 1 && head[0] === 0x16) return { verdict: 'pass' };
    if (head.length < 8) return { verdict: 'more' };
    const length = head.readInt32BE(0);
    const code = head.readInt32BE(4);
    if (length === 8 && code === SSL_REQUEST) return { verdict: 'pass' };
    if (length === 8 && code === GSSENC_REQUEST) return { verdict: 'reply', reply: Buffer.from('N'), consumed: 8 };
    return { verdict: 'refuse' };
  }
  // mysql: 3-byte length, sequence id, then the 4-byte capability flags of the client's first packet.
  if (head.length < 8) return { verdict: 'more' };
  return head.readUInt32LE(4) & CLIENT_SSL ? { verdict: 'pass' } : { verdict: 'refuse' };
}

interface Open {
  spec: PublicListenerSpec;
  allowed: (address: string) => boolean;
  servers: net.Server[];
  sockets: Set<net.Socket>;
}

export class PublicListeners {
  private readonly open = new Map<string, Open>();

  constructor(private readonly logger: Logger) {}

  port(databaseId: string): number {
    return this.open.get(databaseId)?.spec.port ?? 0;
  }

  /** Opens, moves (port changed) or updates (allowlist, target) the listener of a database. */
  async set(databaseId: string, spec: PublicListenerSpec): Promise<void> {
    const current = this.open.get(databaseId);
    if (current && current.spec.port === spec.port) {
      current.spec = spec;
      current.allowed = allowlist(spec.allowedCidrs);
      return;
    }
    if (current) await this.close(databaseId);
    const entry: Open = { spec, allowed: allowlist(spec.allowedCidrs), servers: [], sockets: new Set() };
    entry.servers = await listen(spec.port, (socket) => this.accept(databaseId, entry, socket));
    this.open.set(databaseId, entry);
  }

  /** Closes the port and cuts its connections. */
  async close(databaseId: string): Promise<void> {
    const entry = this.open.get(databaseId);
    if (!entry) return;
    this.open.delete(databaseId);
    for (const s of entry.sockets) s.destroy();
    await Promise.all(entry.servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.open.keys()].map((id) => this.close(id)));
  }

  private accept(databaseId: string, entry: Open, client: net.Socket): void {
    const peer = client.remoteAddress ?? '';
    if (!entry.allowed(peer)) {
      // Cut before any byte: nothing was read, nothing is sent.
      client.resetAndDestroy();
      // Debug only: public ports are scanned from the internet all day.
      this.logger.debug({ databaseId, peer }, 'public database connection refused: peer outside the allowlist');
      return;
    }
    entry.sockets.add(client);
    client.on('close', () => entry.sockets.delete(client));
    client.on('error', () => client.destroy());
    client.setNoDelay(true);
    const { guard } = entry.spec;
    let upstream: net.Socket | null = null;
    const cut = (why: string) => {
      if (why) this.logger.debug({ databaseId, peer, why }, 'public database connection cut');
      client.destroy();
      upstream?.destroy();
    };
    const timer = setTimeout(() => cut('no first message in time'), FIRST_MESSAGE_MS);
    client.once('close', () => clearTimeout(timer));

    const connectUpstream = async (): Promise<net.Socket> => {
      const t = await entry.spec.target();
      const s = net.connect({ host: t.host, port: t.port });
      s.setNoDelay(true);
      s.on('error', () => cut(''));
      s.on('close', () => client.destroy());
      client.on('close', () => s.destroy());
      return s;
    };

    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const v = tlsGuard(guard, head);
      if (v.verdict === 'more') return;
      if (v.verdict === 'refuse') return cut('client did not start TLS');
      if (v.verdict === 'reply') {
        client.write(v.reply);
        head = head.subarray(v.consumed);
        if (head.length) onData(Buffer.alloc(0));
        return;
      }
      client.off('data', onData);
      client.pause();
      clearTimeout(timer);
      const forward = (s: net.Socket) => {
        s.write(head);
        client.pipe(s);
        // mysql: the server's side is piped since its greeting.
        if (guard !== 'mysql') s.pipe(client);
        client.resume();
      };
      if (upstream) forward(upstream);
      else
        connectUpstream().then(
          (s) => {
            upstream = s;
            forward(s);
          },
          () => cut('engine not reachable'),
        );
    };

    if (guard === 'mysql') {
      // The server speaks first: connect now, forward its greeting, judge the client's first packet.
      connectUpstream().then(
        (s) => {
          upstream = s;
          s.pipe(client);
          client.on('data', onData);
        },
        () => cut('engine not reachable'),
      );
      return;
    }
    client.on('data', onData);
  }
}

/** Listens on every address (dual stack, or IPv4 only where IPv6 is off); refuses a taken port. */
async function listen(port: number, onConnection: (s: net.Socket) => void): Promise<net.Server[]> {
  const bind = (host: string, ipv6Only: boolean) =>
    new Promise<net.Server>((resolve, reject) => {
      const server = net.createServer({ pauseOnConnect: false }, onConnection);
      server.once('error', reject);
      server.listen({ host, port, ipv6Only, exclusive: true }, () => {
        server.off('error', reject);
        server.on('error', () => undefined);
        resolve(server);
      });
    });
  try {
    return [await bind('::', false)];
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') throw e;
    return [await bind('0.0.0.0', false)];
  }
}
