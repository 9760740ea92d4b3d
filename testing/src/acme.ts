// DNS and ACME for custom-domain tests and the domains benchmark: a dnsmasq the agent resolves with (records set
// by the test) and a Pebble ACME CA (Debian's `pebble`) whose HTTP-01 validations resolve through that dnsmasq
// and connect to this machine's Caddy ingress. Both on free loopback ports, stopped by `close()`.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, existsSync, openSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { TEST_SERVICES } from './services';

export interface DnsRecords {
  a?: string[];
  aaaa?: string[];
  txt?: string[];
  cname?: string;
}

export interface TestDns {
  /** `127.0.0.1:<port>`: the resolver to give the agent. */
  server: string;
  /** Replaces the records of `name` (dnsmasq is restarted on the same port: it reads TXT records only at start). */
  set(name: string, records: DnsRecords): Promise<void>;
  remove(name: string): Promise<void>;
  close(): Promise<void>;
}

export interface TestAcme {
  dns: TestDns;
  /** Pebble's ACME directory URL. */
  directory: string;
  /** The PEM file of the certificate Pebble's API serves: the agent's extra trusted root (Caddy talks to Pebble). */
  apiRootFile: string;
  /** The root Pebble issues under (changes at every Pebble start): what an HTTPS client must trust. */
  issuingRoot(): Promise<string>;
  /** What Pebble logged so far (its orders and issued certificates: `Issued certificate serial … for order …`). */
  log(): Promise<string>;
  close(): Promise<void>;
}

export async function freePort(host = '127.0.0.1'): Promise<number> {
  const server = net.createServer();
  server.listen(0, host);
  await once(server, 'listening');
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((r) => server.close(r));
  return port;
}

function run(cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('error', reject);
    p.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} exited ${code}: ${err.trim()}`))));
  });
}

async function stop(p: ChildProcess | null): Promise<void> {
  if (!p || p.exitCode !== null || p.signalCode !== null) return;
  const exited = once(p, 'exit');
  p.kill('SIGTERM');
  await exited;
}

async function waitForPort(port: number, what: string, timeoutMs = 10_000, host = '127.0.0.1'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, host, () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${what} did not listen on ${host}:${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A dnsmasq answering only the records set here (no upstream, no /etc/hosts) on 127.0.0.1:<free port> (or `host`: the
 * fleet's bridge address, where servers in their namespaces reach it); names under `.example`, `.test` and
 * `.localhost` are its own (no such record: NXDOMAIN or an empty answer, never REFUSED).
 */
export async function startTestDns(dir?: string, host = '127.0.0.1'): Promise<TestDns> {
  const own = !dir;
  const base = dir ?? (await mkdtemp(path.join(os.tmpdir(), 'slipway-dns-')));
  const port = await freePort(host);
  const conf = path.join(base, 'dnsmasq.conf');
  const records = new Map<string, DnsRecords>();
  let proc: ChildProcess | null = null;

  const render = () => {
    const lines = ['no-resolv', 'no-hosts', 'bind-interfaces', `listen-address=${host}`, `port=${port}`, 'cache-size=0', 'local-ttl=0', 'local=/example/', 'local=/test/', 'local=/localhost/'];
    for (const [name, r] of records) {
      // A name with records of its own answers NXDOMAIN/NODATA for the rest, never forwarded (no upstream anyway).
      if (r.cname) lines.push(`cname=${name},${r.cname}`);
      for (const ip of [...(r.a ?? []), ...(r.aaaa ?? [])]) lines.push(`host-record=${name},${ip}`);
      for (const t of r.txt ?? []) lines.push(`txt-record=${name},"${t.replace(/["\\]/g, '')}"`);
    }
    return lines.join('\n') + '\n';
  };
  const restart = async () => {
    await stop(proc);
    await writeFile(conf, render());
    proc = spawn(existsSync('/usr/sbin/dnsmasq') ? '/usr/sbin/dnsmasq' : 'dnsmasq', ['--keep-in-foreground', `--conf-file=${conf}`, '--user=root', '--pid-file=', '--log-facility=-'], { stdio: 'ignore' });
    await waitForPort(port, 'dnsmasq', 10_000, host);
  };
  await restart();
  return {
    server: `${host}:${port}`,
    async set(name, r) {
      records.set(name.toLowerCase(), r);
      await restart();
    },
    async remove(name) {
      records.delete(name.toLowerCase());
      await restart();
    },
    async close() {
      await stop(proc);
      if (own) await rm(base, { recursive: true, force: true });
    },
  };
}

/**
 * Pebble with its DNS on a test dnsmasq: HTTP-01 validations of a hostname resolve there and connect to this
 * machine's ingress (TEST_SERVICES.ingressPort). Pebble's API certificate is made here with openssl (Debian's
 * package ships none); PEBBLE_VA_NOSLEEP=1 (no 0–15 s pauses), PEBBLE_WFE_NONCEREJECT=0 (no refused nonces).
 */
export async function startTestAcme(o: { host?: string; httpPort?: number } = {}): Promise<TestAcme> {
  // `host`: where Pebble and its dnsmasq listen (the fleet's bridge address: servers in namespaces reach them there).
  const host = o.host ?? '127.0.0.1';
  const dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-acme-'));
  const dns = await startTestDns(dir, host);
  const [apiPort, managementPort] = [await freePort(host), await freePort(host)];
  const apiRootFile = path.join(dir, 'api-ca.pem');
  const caKey = path.join(dir, 'api-ca.key');
  const cert = path.join(dir, 'api.pem');
  const key = path.join(dir, 'api.key');
  const csr = path.join(dir, 'api.csr');
  const ext = path.join(dir, 'api.ext');
  await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', caKey, '-out', apiRootFile, '-days', '2', '-subj', '/CN=slipway test pebble api root']);
  await run('openssl', ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', csr, '-subj', '/CN=localhost']);
  await writeFile(ext, `subjectAltName=IP:127.0.0.1,DNS:localhost${host === '127.0.0.1' ? '' : `,IP:${host}`}\nbasicConstraints=CA:FALSE\n`);
  await run('openssl', ['x509', '-req', '-in', csr, '-CA', apiRootFile, '-CAkey', caKey, '-CAcreateserial', '-out', cert, '-days', '2', '-extfile', ext]);
  const config = path.join(dir, 'pebble.json');
  await writeFile(
    config,
    JSON.stringify({
      pebble: {
        listenAddress: `${host}:${apiPort}`,
        managementListenAddress: `${host}:${managementPort}`,
        certificate: cert,
        privateKey: key,
        httpPort: o.httpPort ?? TEST_SERVICES.ingressPort,
        tlsPort: 443,
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
      },
    }),
  );
  const logFile = path.join(dir, 'pebble.log');
  const logFd = openSync(logFile, 'a');
  const pebble = spawn('pebble', ['-config', config, '-strict=false', '-dnsserver', dns.server], {
    stdio: ['ignore', logFd, logFd],
    env: { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0', PEBBLE_VA_ALWAYS_VALID: '0' },
  });
  closeSync(logFd);
  await waitForPort(apiPort, 'pebble', 10_000, host);
  await waitForPort(managementPort, 'pebble management', 10_000, host);
  const apiRoot = await readFile(apiRootFile, 'utf8');
  return {
    dns,
    directory: `https://${host}:${apiPort}/dir`,
    apiRootFile,
    issuingRoot: () =>
      new Promise<string>((resolve, reject) => {
        https
          .get(`https://${host}:${managementPort}/roots/0`, { ca: apiRoot }, (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (d: string) => (body += d));
            res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`pebble answered ${res.statusCode} for its root`))));
          })
          .on('error', reject);
      }),
    log: () => readFile(logFile, 'utf8'),
    async close() {
      await stop(pebble);
      await dns.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface HttpsAnswer {
  status: number;
  body: string;
  location: string | null;
  /** The served certificate's issuer CN (HTTPS only). */
  issuer: string | null;
}

/**
 * GET `https://<hostname><path>` through 127.0.0.1:`port` (the name resolved to this machine, SNI and Host set),
 * trusting only `ca`. With `ca` null: plain HTTP on the ingress port instead (redirects not followed).
 */
export function getVia(hostname: string, o: { ca: string | null; port?: number; path?: string; timeoutMs?: number }): Promise<HttpsAnswer> {
  const secure = o.ca !== null;
  return new Promise((resolve, reject) => {
    const onResponse = (res: http.IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const socket = res.socket as TLSSocket;
        const issuer = secure ? (socket.getPeerCertificate?.()?.issuer?.CN ?? null) : null;
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), location: (res.headers.location as string | undefined) ?? null, issuer: Array.isArray(issuer) ? issuer.join(', ') : issuer });
      });
      res.on('error', reject);
    };
    const common = { host: '127.0.0.1', path: o.path ?? '/', method: 'GET', headers: { Host: hostname }, timeout: o.timeoutMs ?? 5_000, agent: false as const };
    const req = secure
      ? https.request({ ...common, port: o.port ?? 443, servername: hostname, ca: o.ca ?? undefined }, onResponse)
      : http.request({ ...common, port: o.port ?? TEST_SERVICES.ingressPort }, onResponse);
    req.on('timeout', () => req.destroy(new Error(`no answer from ${hostname} within ${o.timeoutMs ?? 5_000} ms`)));
    req.on('error', reject);
    req.end();
  });
}
