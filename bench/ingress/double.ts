// The bench's stand-in for an agent's data plane (a child process, so its event loop is not the load generator's):
// K upstream HTTP servers (each answers `up <port>`), the route table's DNS server (./route-dns.ts), and the
// table saved as a JSON file at every change as the agent saves its routes. Driven over IPC by ./run.ts.
import http from 'node:http';
import { once } from 'node:events';
import { saveJson } from '../../apps/agent/src/ingress/caddy-admin';
import { RouteDns } from './route-dns';

type Message = { id: number; op: 'seed'; n: number } | { id: number; op: 'set'; host: string; ports: number[] } | { id: number; op: 'delete'; host: string } | { id: number; op: 'stats' };

const UPSTREAMS = Number(process.env.BENCH_UPSTREAMS ?? 8);
const FILE = process.env.BENCH_TABLE_FILE ?? '/tmp/slipway-bench-ingress-table.json';

async function main() {
  const ports: number[] = [];
  for (let i = 0; i < UPSTREAMS; i++) {
    const server = http.createServer((req, res) => {
      req.resume();
      res.setHeader('Content-Type', 'text/plain');
      res.end(`up ${port}\n`);
    });
    server.keepAliveTimeout = 60_000;
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as { port: number }).port;
    ports.push(port);
  }
  const dns = new RouteDns();
  const dnsPort = await dns.listen(0);
  const save = () => saveJson(FILE, dns.entries());
  process.on('message', (m: Message) => {
    void (async () => {
      const started = performance.now();
      if (m.op === 'seed') {
        for (let i = 0; i < m.n; i++) dns.set(`app-${i}.apps.bench`, [ports[i % ports.length]!]);
        await save();
      } else if (m.op === 'set') {
        dns.set(m.host, m.ports);
        await save();
      } else if (m.op === 'delete') {
        dns.delete(m.host);
        await save();
      }
      process.send!({ id: m.id, ms: performance.now() - started, queries: dns.queries, size: dns.size });
    })();
  });
  process.send!({ id: 0, ready: true, dnsPort, ports });
}

void main();
