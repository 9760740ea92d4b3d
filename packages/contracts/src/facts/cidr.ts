import { isIPv4, isIPv6 } from 'node:net';

/**
 * The rules of a database's public allowlist, in one place for the control plane (which validates `PUT …/public`)
 * and the agent (which validates what it is sent and matches peers). A bare address is one host (`/32`, `/128`). A
 * prefix past the family's width (`10.0.0.0/33`, `::/129`) is refused. Host bits set (`10.0.0.1/8`) are refused too,
 * with the range they probably meant in the message: an allowlist is a security boundary, and silently widening or
 * narrowing who may connect is not ours to decide. Ranges are written canonically (IPv6 per RFC 5952). IPv4-mapped
 * IPv6 peers (`::ffff:1.2.3.4`, as a dual-stack socket reports them) match IPv4 ranges.
 */
export interface Cidr {
  family: 4 | 6;
  bytes: Uint8Array;
  prefix: number;
}

/** Why a range was refused (a phrase to put after it), or the range written canonically. */
export type CidrCheck = { ok: true; cidr: string } | { ok: false; message: string };

/** One range (or bare address), validated and parsed. */
export function parseCidr(input: string): { ok: true; cidr: Cidr; text: string } | { ok: false; message: string } {
  const [address = '', prefixText, ...rest] = input.trim().split('/');
  if (rest.length) return { ok: false, message: 'is not a CIDR range (one / at most)' };
  const ip = ipBytes(address);
  if (!ip) return { ok: false, message: `${JSON.stringify(address)} is not an IPv4 or IPv6 address` };
  const width = ip.family === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return { ok: false, message: 'has a prefix length that is not a number' };
  const prefix = prefixText === undefined ? width : Number(prefixText);
  if (prefix > width) return { ok: false, message: `has a prefix length of ${prefix}; IPv${ip.family} allows 0 to ${width}` };
  const network = masked(ip.bytes, prefix);
  const text = `${format(ip.family, network)}/${prefix}`;
  if (network.some((b, i) => b !== ip.bytes[i])) return { ok: false, message: `has host bits set; the range is ${text}` };
  return { ok: true, cidr: { family: ip.family, bytes: network, prefix }, text };
}

/** One range checked: canonical text, or why it was refused. */
export function checkCidr(input: string): CidrCheck {
  const r = parseCidr(input);
  return r.ok ? { ok: true, cidr: r.text } : r;
}

/** A whole allowlist: the canonical, de-duplicated list, or every problem found (index, and the range with why). */
export function validateCidrs(list: readonly string[]): { ok: true; cidrs: string[] } | { ok: false; errors: { index: number; message: string }[] } {
  const errors: { index: number; message: string }[] = [];
  const out: string[] = [];
  list.forEach((c, index) => {
    const r = typeof c === 'string' ? checkCidr(c) : ({ ok: false, message: 'must be a string' } as const);
    if (!r.ok) errors.push({ index, message: `${String(c)} ${r.message}` });
    else if (!out.includes(r.cidr)) out.push(r.cidr);
  });
  return errors.length ? { ok: false, errors } : { ok: true, cidrs: out };
}

/** Whether a peer address (as a socket reports it) lies in a range. */
export function cidrContains(cidr: Cidr, address: string): boolean {
  let ip = ipBytes(address);
  if (!ip) return false;
  // ::ffff:a.b.c.d is an IPv4 peer on a dual-stack socket.
  if (ip.family === 6 && ip.bytes.subarray(0, 10).every((b) => b === 0) && ip.bytes[10] === 0xff && ip.bytes[11] === 0xff) {
    ip = { family: 4, bytes: ip.bytes.slice(12) };
  }
  if (ip.family !== cidr.family) return false;
  return masked(ip.bytes, cidr.prefix).every((b, i) => b === cidr.bytes[i]);
}

/** A matcher over a validated list (invalid entries are ignored: validation happened before). */
export function allowlist(list: readonly string[]): (address: string) => boolean {
  const cidrs = list.map(parseCidr).flatMap((r) => (r.ok ? [r.cidr] : []));
  return (address) => cidrs.some((c) => cidrContains(c, address));
}

function ipBytes(address: string): { family: 4 | 6; bytes: Uint8Array } | null {
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
  const part = (s: string) => (s === '' ? [] : s.split(':').map((h) => parseInt(h, 16)));
  const head = part(halves[0]!);
  const rest = halves.length === 2 ? part(halves[1]!) : [];
  const groups = halves.length === 2 ? [...head, ...Array<number>(8 - head.length - rest.length).fill(0), ...rest] : head;
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[i * 2] = g >> 8;
    bytes[i * 2 + 1] = g & 0xff;
  });
  return { family: 6, bytes };
}

function masked(bytes: Uint8Array, prefix: number): Uint8Array {
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) {
    const bits = Math.max(0, Math.min(8, prefix - i * 8));
    out[i] = bytes[i]! & ((0xff << (8 - bits)) & 0xff);
  }
  return out;
}

/** IPv4 dotted; IPv6 per RFC 5952: lowercase, the longest run of two or more zero groups as `::`. */
function format(family: 4 | 6, bytes: Uint8Array): string {
  if (family === 4) return Array.from(bytes).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => (bytes[i * 2]! << 8) | bytes[i * 2 + 1]!);
  let best = { start: -1, len: 1 };
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.len) best = { start: i, len: j - i };
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.start < 0) return hex.join(':');
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.len).join(':')}`;
}
