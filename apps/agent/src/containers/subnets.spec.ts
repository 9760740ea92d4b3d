import { capacity, firstFree, formatCidr, gatewayOf, overlaps, parseCidr, type Cidr } from './subnets';

const cidr = (s: string): Cidr => parseCidr(s)!;

describe('workspace subnets', () => {
  it('parses CIDRs and clears host bits', () => {
    expect(formatCidr(cidr('100.64.3.7/10'))).toBe('100.64.0.0/10');
    expect(parseCidr('100.64.0.0')).toBeNull();
    expect(parseCidr('300.1.1.1/8')).toBeNull();
    expect(parseCidr('1.2.3.4/33')).toBeNull();
  });

  it('holds at least 4,000 workspaces with the defaults', () => {
    expect(capacity(cidr('100.64.0.0/10'), 24)).toBe(16_384);
    expect(capacity(cidr('198.51.100.0/24'), 29)).toBe(32);
    expect(capacity(cidr('10.0.0.0/24'), 16)).toBe(0);
  });

  it('takes the first subnet no other network overlaps', () => {
    const range = cidr('100.64.0.0/16');
    expect(formatCidr(firstFree(range, 24, [])!)).toBe('100.64.0.0/24');
    expect(formatCidr(firstFree(range, 24, [cidr('100.64.0.0/24'), cidr('100.64.1.0/24')])!)).toBe('100.64.2.0/24');
    // A larger network of someone else inside the range is skipped whole, the next candidate stays aligned.
    expect(formatCidr(firstFree(range, 24, [cidr('100.64.0.0/22'), cidr('172.17.0.0/16')])!)).toBe('100.64.4.0/24');
    // A smaller one blocks the candidate it falls in.
    expect(formatCidr(firstFree(range, 24, [cidr('100.64.0.128/25')])!)).toBe('100.64.1.0/24');
  });

  it("skips subnets that hold one of the server's own addresses", () => {
    expect(formatCidr(firstFree(cidr('100.64.0.0/16'), 24, [], ['100.64.0.9', '127.0.0.1'])!)).toBe('100.64.1.0/24');
  });

  it('says when the range is full', () => {
    const range = cidr('198.51.100.0/28');
    expect(firstFree(range, 29, [cidr('198.51.100.0/29'), cidr('198.51.100.8/29')])).toBeNull();
    expect(firstFree(range, 29, [cidr('198.51.100.0/24')])).toBeNull();
  });

  it('knows overlap and the gateway', () => {
    expect(overlaps(cidr('10.0.0.0/8'), cidr('10.200.0.0/16'))).toBe(true);
    expect(overlaps(cidr('10.0.0.0/24'), cidr('10.0.1.0/24'))).toBe(false);
    expect(gatewayOf(cidr('100.64.7.0/24'))).toBe('100.64.7.1');
  });
});
