import { isIPv4, isIPv6 } from 'node:net';

/** Why a range was refused, or the range written canonically. */
export type CidrCheck = { ok: true; cidr: string } | { ok: false; message: string };

/**
 * An IPv4 or IPv6 range as the allowlist keeps it. A bare address is one host (`/32`, `/128`). A prefix past the
 * family's width (`10.0.0.0/33`, `::/129`) is refused. Host bits set (`10.0.0.1/8`) are refused too, with the range
 * they probably meant in the message: silently widening or narrowing who may connect is not ours to decide.
 */
export function checkCidr(input: string): CidrCheck {
  const [address = '', prefixText, ...rest] = input.trim().split('/');
  if (rest.length) return { ok: false, message: 'is not a CIDR range (one / at most)' };
  const v4 = isIPv4(address);
  if (!v4 && !isIPv6(address)) return { ok: false, message: `${JSON.stringify(address)} is not an IPv4 or IPv6 address` };
  const width = v4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return { ok: false, message: 'has a prefix length that is not a number' };
  const prefix = prefixText === undefined ? width : Number(prefixText);
  if (prefix > width) return { ok: false, message: `has a prefix length of ${prefix}; ${v4 ? 'IPv4' : 'IPv6'} allows 0 to ${width}` };
  const bits = v4 ? v4Bits(address) : v6Bits(address);
  const mask = prefix === 0 ? 0n : ((1n << BigInt(prefix)) - 1n) << BigInt(width - prefix);
  const network = bits & mask;
  const canonical = `${v4 ? v4Text(network) : v6Text(network)}/${prefix}`;
  if (network !== bits) return { ok: false, message: `has host bits set; the range is ${canonical}` };
  return { ok: true, cidr: canonical };
}

function v4Bits(a: string): bigint {
  return a.split('.').reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n);
}

function v4Text(n: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => String((n >> s) & 0xffn)).join('.');
}

function v6Bits(a: string): bigint {
  let text = a;
  // An embedded IPv4 tail (::ffff:10.0.0.1) becomes two groups.
  const v4Tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4Tail) {
    const n = v4Bits(v4Tail[1]!);
    text = `${text.slice(0, -v4Tail[1]!.length)}${((n >> 16n) & 0xffffn).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return groups.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n);
}

/** RFC 5952: lowercase, the longest run of zero groups (two or more) as `::`. */
function v6Text(n: bigint): string {
  const groups = Array.from({ length: 8 }, (_, i) => Number((n >> BigInt(112 - i * 16)) & 0xffffn));
  let best = { start: -1, len: 0 };
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
  if (best.len < 2) return hex.join(':');
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.len).join(':')}`;
}
