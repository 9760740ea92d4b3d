/** IPv4 CIDR arithmetic for the workspace networks' address range (pure: unit-tested in subnets.spec.ts). */

export interface Cidr {
  /** The network address as an unsigned 32-bit number. */
  base: number;
  prefix: number;
}

const toNumber = (ip: string): number | null => {
  const parts = ip.split('.');
  if (parts.length !== 4) return null;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return null;
    n = n * 256 + Number(p);
  }
  return n;
};

export const toIp = (n: number): string => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');

const size = (prefix: number) => 2 ** (32 - prefix);

/** `a.b.c.d/p` with its host bits cleared, or null when it is not an IPv4 CIDR. */
export function parseCidr(text: string): Cidr | null {
  const [ip, p, ...rest] = text.trim().split('/');
  if (rest.length || ip === undefined || p === undefined || !/^\d{1,2}$/.test(p) || Number(p) > 32) return null;
  const n = toNumber(ip);
  if (n === null) return null;
  const prefix = Number(p);
  return { base: n - (n % size(prefix)), prefix };
}

export const formatCidr = (c: Cidr): string => `${toIp(c.base)}/${c.prefix}`;

export const overlaps = (a: Cidr, b: Cidr): boolean => a.base < b.base + size(b.prefix) && b.base < a.base + size(a.prefix);

export const containsIp = (c: Cidr, ip: string): boolean => {
  const n = toNumber(ip);
  return n !== null && n >= c.base && n < c.base + size(c.prefix);
};

/** How many subnets of `prefix` the range holds. */
export const capacity = (range: Cidr, prefix: number): number => (prefix < range.prefix ? 0 : 2 ** (prefix - range.prefix));

/**
 * The first subnet of `prefix` inside `range` that overlaps none of `taken` and holds none of `hostAddresses` (the
 * server's own interfaces: a VPN address inside the range must keep its route); null when the range is full.
 */
export function firstFree(range: Cidr, prefix: number, taken: Cidr[], hostAddresses: string[] = []): Cidr | null {
  const step = size(prefix);
  const inRange = taken.filter((t) => overlaps(t, range)).sort((a, b) => a.base - b.base);
  const end = range.base + size(range.prefix);
  let base = range.base;
  while (base + step <= end) {
    const candidate = { base, prefix };
    const blocking = inRange.find((t) => overlaps(t, candidate));
    if (blocking) {
      // Skip past the blocking subnet, keeping the candidate aligned to its own size.
      const after = blocking.base + size(blocking.prefix);
      base = Math.max(base + step, Math.ceil(after / step) * step);
      continue;
    }
    if (!hostAddresses.some((ip) => containsIp(candidate, ip))) return candidate;
    base += step;
  }
  return null;
}

/** The gateway Docker gives the bridge: the subnet's first host address. */
export const gatewayOf = (c: Cidr): string => toIp(c.base + 1);
