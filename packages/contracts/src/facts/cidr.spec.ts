import { allowlist, checkCidr, parseCidr, validateCidrs } from './cidr';

describe('allowlist ranges (control plane and agent alike)', () => {
  it.each([
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['127.0.0.1', '127.0.0.1/32'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['::/0', '::/0'],
    ['2001:DB8::/32', '2001:db8::/32'],
    ['::1', '::1/128'],
    ['fe80:0:0:0:0:0:0:0/10', 'fe80::/10'],
    ['::ffff:10.0.0.0/120', '::ffff:a00:0/120'],
    ['::ffff:192.0.2.0/120', '::ffff:c000:200/120'],
    ['2001:db8:0:1:0:0:0:0/64', '2001:db8:0:1::/64'],
  ])('accepts %s as %s', (input, cidr) => expect(checkCidr(input)).toEqual({ ok: true, cidr }));

  it.each([
    ['10.0.0.0/33', 'has a prefix length of 33; IPv4 allows 0 to 32'],
    ['::/129', 'has a prefix length of 129; IPv6 allows 0 to 128'],
    ['10.0.0.1/8', 'has host bits set; the range is 10.0.0.0/8'],
    ['10.0.0.1/24', 'has host bits set; the range is 10.0.0.0/24'],
    ['2001:db8::1/32', 'has host bits set; the range is 2001:db8::/32'],
    ['300.0.0.0/8', 'is not an IPv4 or IPv6 address'],
    ['10.0.0.0/8/9', 'one / at most'],
    ['10.0.0.0/x', 'not a number'],
  ])('refuses %s (%s)', (input, message) => {
    expect(checkCidr(input)).toEqual({ ok: false, message: expect.stringContaining(message) });
  });

  it('refuses garbage of every kind', () => {
    for (const bad of ['', 'example.com', '10.0.0/8', '1.2.3.4/', '1.2.3.4/-1', '1::2::3', '300.1.1.1', '10.0.0.0/08x']) expect(parseCidr(bad).ok).toBe(false);
  });

  it('validates a whole list: canonical and de-duplicated, or every problem with its index', () => {
    expect(validateCidrs(['10.0.0.0/8', '203.0.113.7', '2001:DB8::/32', '::1', '0.0.0.0/0', '::/0', '10.0.0.0/8'])).toEqual({
      ok: true,
      cidrs: ['10.0.0.0/8', '203.0.113.7/32', '2001:db8::/32', '::1/128', '0.0.0.0/0', '::/0'],
    });
    expect(validateCidrs(['10.0.0.0/8', 'nope', '::/129'])).toEqual({
      ok: false,
      errors: [
        { index: 1, message: 'nope "nope" is not an IPv4 or IPv6 address' },
        { index: 2, message: '::/129 has a prefix length of 129; IPv6 allows 0 to 128' },
      ],
    });
  });

  it('matches peers, IPv4-mapped IPv6 peers against IPv4 ranges', () => {
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
