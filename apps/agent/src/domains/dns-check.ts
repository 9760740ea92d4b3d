import { Resolver } from 'node:dns/promises';

export interface DnsSeen {
  a: string[];
  aaaa: string[];
  txt: string[];
  cnames: string[];
  error: string;
}

/** Answers that mean "no such record" (an empty answer, not a failure). */
const ABSENT = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN', 'ENONAME']);

/**
 * A hostname as this server's resolvers see it, asked directly with `dns.Resolver` (not `dns.lookup`, which goes
 * through glibc and its cache): the configured servers, or the system's when none are. Each query times out after
 * 3 s per server and is tried twice.
 */
export async function checkDns(hostname: string, txtName: string, servers: string[]): Promise<DnsSeen> {
  const resolver = new Resolver({ timeout: 3_000, tries: 2 });
  if (servers.length) resolver.setServers(servers);
  const problems: string[] = [];
  const ask = async <T>(what: string, name: string, q: () => Promise<T[]>): Promise<T[]> => {
    try {
      return await q();
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? 'error';
      if (!ABSENT.has(code)) problems.push(`${what} lookup of ${name} failed (${code})`);
      return [];
    }
  };
  const cnames: string[] = [];
  let name = hostname;
  for (let i = 0; i < 8; i++) {
    const next = await ask('CNAME', name, () => resolver.resolveCname(name));
    if (!next.length) break;
    name = next[0]!.replace(/\.$/, '').toLowerCase();
    if (cnames.includes(name)) break;
    cnames.push(name);
  }
  const [a, aaaa, txt] = await Promise.all([
    ask('A', hostname, () => resolver.resolve4(hostname)),
    ask('AAAA', hostname, () => resolver.resolve6(hostname)),
    ask('TXT', txtName, () => resolver.resolveTxt(txtName)),
  ]);
  return { a, aaaa, txt: txt.map((chunks) => chunks.join('')), cnames, error: problems.join('; ') };
}
