import { allowlist, parseCidr, validateCidrs } from './cidr';

describe('database allowlist CIDRs', () => {
  it('accepts IPv4 and IPv6 networks and bare addresses, in canonical form', () => {
    expect(validateCidrs(['10.0.0.0/8', '203.0.113.7', '2001:DB8::/32', '::1', '0.0.0.0/0', '::/0', '10.0.0.0/8'])).toEqual({
      ok: true,
      cidrs: ['10.0.0.0/8', '203.0.113.7/32', '2001:db8::/32', '::1/128', '0.0.0.0/0', '::/0'],
    });
    expect(parseCidr('::ffff:192.0.2.0/120')).toMatchObject({ ok: true, text: '::ffff:c000:200/120' });
  });

  it('refuses prefixes out of range, garbage and host bits set (naming the network meant)', () => {
    expect(parseCidr('10.0.0.0/33')).toEqual({ ok: false, message: '10.0.0.0/33: the prefix length must be 0-32 for IPv4' });
    expect(parseCidr('::/129')).toEqual({ ok: false, message: '::/129: the prefix length must be 0-128 for IPv6' });
    expect(parseCidr('10.0.0.1/24')).toEqual({ ok: false, message: '10.0.0.1/24 has host bits set: use 10.0.0.0/24' });
    expect(parseCidr('2001:db8::1/64')).toEqual({ ok: false, message: '2001:db8::1/64 has host bits set: use 2001:db8::/64' });
    for (const bad of ['', 'example.com', '10.0.0/8', '1.2.3.4/', '1.2.3.4/-1', '1::2::3', '300.1.1.1', '10.0.0.0/08x']) expect(parseCidr(bad).ok).toBe(false);
    expect(validateCidrs(['10.0.0.0/8', 'nope', '::/129'])).toMatchObject({ ok: false, errors: [{ index: 1 }, { index: 2 }] });
  });

  it('matches peers, IPv4-mapped IPv6 peers against IPv4 networks', () => {
    const allowed = allowlist(['192.0.2.0/24', '2001:db8::/32']);
    expect(allowed('192.0.2.200')).toBe(true);
    expect(allowed('::ffff:192.0.2.9')).toBe(true);
    expect(allowed('192.0.3.1')).toBe(false);
    expect(allowed('2001:db8:1::5')).toBe(true);
    expect(allowed('2001:db9::5')).toBe(false);
    expect(allowlist([])('127.0.0.1')).toBe(false);
    expect(allowlist(['0.0.0.0/0'])('::1')).toBe(false);
  });
});
