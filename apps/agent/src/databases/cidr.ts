import { isIPv4, isIPv6 } from 'node:net';

/**
 * IPv4/IPv6 CIDRs of a database's public allowlist: parsing, validation and membership (pure; the control plane
 * validates `PUT …/public` with the same rules). A bare address is a single host (`/32`, `/128`). A CIDR whose host
 * bits are set (`10.0.0.1/24`) is REFUSED, naming the network it probably meant (`10.0.0.0/24`): an allowlist is a
 * security boundary and a silent widening or narrowing would surprise. IPv4-mapped IPv6 peers (`::ffff:1.2.3.4`)
 * match IPv4 CIDRs.
 */
export interface Cidr {
  family: 4 | 6;
  bytes: Uint8Array;
  prefix: number;
}

export type CidrResult = { ok: true; cidr: Cidr; text: string } | { ok: false; message: string };

export function ipBytes(address: string): { family: 4 | 6; bytes: Uint8Array } | null {
  if (isIPv4(address)) return { family: 4, bytes: Uint8Array.from(address.split('.').map(Number)) };
  if (!isIPv6(address)) return null;
  let text = address.split('%')[0]!;
  // A trailing dotted quad is the last 32 bits: rewritten as two hex groups.
  if (text.includes('.')) {
    const at = text.lastIndexOf(':');
    const b = text.slice(at + 1).split('.').map(Number);
    text = `${text.slice(0, at + 1)}${((b[0]! << 8) | b[1]!).toString(16)}:${((b[2]! << 8) | b[3]!).toString(16)}`;
  }
  const halves = text.split('::');
  const part = (s: string) => (s === '' ? [] : s.split(':').map((h) => (/^[0-9a-fA-F]{1,4}$/.test(h) ? parseInt(h, 16) : -1)));
  let groups: number[];
  if (halves.length === 2) {
    const head = part(halves[0]!);
    const rest = part(halves[1]!);
    groups = [...head, ...Array<number>(Math.max(0, 8 - head.length - rest.length)).fill(0), ...rest];
  } else {
    groups = part(text);
  }
  if (groups.length !== 8 || groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)) return null;
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[i * 2] = g >> 8;
    bytes[i * 2 + 1] = g & 0xff;
  });
  return { family: 6, bytes };
}

function format({ family, bytes }: { family: 4 | 6; bytes: Uint8Array }): string {
  if (family === 4) return Array.from(bytes).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => (bytes[i * 2]! << 8) | bytes[i * 2 + 1]!);
  // The longest run of two or more zero groups becomes `::` (RFC 5952).
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
}

function masked(bytes: Uint8Array, prefix: number): Uint8Array {
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) {
    const bits = Math.max(0, Math.min(8, prefix - i * 8));
    out[i] = bytes[i]! & ((0xff << (8 - bits)) & 0xff);
  }
  return out;
}

/** One CIDR (or bare address), validated; `text` is its canonical form. */
export function parseCidr(input: string): CidrResult {
  const raw = input.trim();
  const slash = raw.indexOf('/');
  const addr = slash < 0 ? raw : raw.slice(0, slash);
  const ip = ipBytes(addr);
  if (!ip) return { ok: false, message: `${input} is not an IPv4 or IPv6 address or CIDR` };
  const max = ip.family === 4 ? 32 : 128;
  let prefix = max;
  if (slash >= 0) {
    const p = raw.slice(slash + 1);
    if (!/^\d{1,3}$/.test(p) || Number(p) > max) return { ok: false, message: `${input}: the prefix length must be 0-${max} for IPv${ip.family}` };
    prefix = Number(p);
  }
  const net = masked(ip.bytes, prefix);
  const text = `${format({ family: ip.family, bytes: net })}/${prefix}`;
  if (net.some((b, i) => b !== ip.bytes[i])) return { ok: false, message: `${input} has host bits set: use ${text}` };
  return { ok: true, cidr: { family: ip.family, bytes: net, prefix }, text };
}

/** A whole allowlist: the canonical, de-duplicated list, or every problem found (index and message). */
export function validateCidrs(list: readonly string[]): { ok: true; cidrs: string[] } | { ok: false; errors: { index: number; message: string }[] } {
  const errors: { index: number; message: string }[] = [];
  const out: string[] = [];
  list.forEach((c, index) => {
    const r = typeof c === 'string' ? parseCidr(c) : ({ ok: false, message: 'must be a string' } as const);
    if (!r.ok) errors.push({ index, message: r.message });
    else if (!out.includes(r.text)) out.push(r.text);
  });
  return errors.length ? { ok: false, errors } : { ok: true, cidrs: out };
}

/** Whether a peer address (as a socket reports it) lies in a CIDR. */
export function cidrContains(cidr: Cidr, address: string): boolean {
  let ip = ipBytes(address);
  if (!ip) return false;
  // ::ffff:a.b.c.d is an IPv4 peer on a dual-stack socket.
  if (ip.family === 6 && ip.bytes.subarray(0, 10).every((b) => b === 0) && ip.bytes[10] === 0xff && ip.bytes[11] === 0xff) {
    ip = { family: 4, bytes: ip.bytes.slice(12) };
  }
  if (ip.family !== cidr.family) return false;
  const net = masked(ip.bytes, cidr.prefix);
  return net.every((b, i) => b === cidr.bytes[i]);
}

/** A matcher over a validated list (invalid entries are ignored: validation happened before). */
export function allowlist(list: readonly string[]): (address: string) => boolean {
  const cidrs = list.map(parseCidr).flatMap((r) => (r.ok ? [r.cidr] : []));
  return (address) => cidrs.some((c) => cidrContains(c, address));
}
