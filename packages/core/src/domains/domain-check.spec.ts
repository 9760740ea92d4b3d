import { afterCheck, judge, PENDING_FOR_MS } from './domain-check';

const expected = { hostname: 'www.example.com', txtName: '_svc.www.example.com', txtValue: 'tok', a: ['198.51.100.7'], aaaa: [], cname: 'web-acme.apps.example.net' };
const at = new Date('2026-11-25T00:00:00.000Z');
const seen = (o: Partial<{ a: string[]; aaaa: string[]; txt: string[]; cnames: string[]; error: string | null }>) => ({ a: [], aaaa: [], txt: [], cnames: [], error: null, ...o });

describe('judge', () => {
  it('passes with the TXT value and every A answer at the server', () => {
    expect(judge(expected, seen({ a: ['198.51.100.7'], txt: ['tok'] }), at).error).toBeNull();
  });

  it('names the missing TXT record and a wrong A record in words', () => {
    expect(judge(expected, seen({ a: ['198.51.100.7'] }), at).error).toBe('TXT record _svc.www.example.com not found');
    expect(judge(expected, seen({ a: ['203.0.113.9'], txt: ['tok'] }), at).error).toBe('A record points at 203.0.113.9, expected 198.51.100.7');
    expect(judge(expected, seen({ txt: ['other'] }), at).error).toContain('holds "other", expected "tok"');
  });

  it("accepts a CNAME chain ending at the app's subdomain", () => {
    const check = judge(expected, seen({ cnames: ['web-acme.apps.example.net'], a: ['10.9.9.9'], txt: ['tok'] }), at);
    expect(check).toMatchObject({ error: null, cname: 'web-acme.apps.example.net', txt: true });
  });
});

describe('afterCheck', () => {
  const pending = { status: 'pending' as const, failures: 0, pendingUntil: new Date(at.getTime() + PENDING_FOR_MS), verifiedAt: null };
  const ok = judge(expected, seen({ a: ['198.51.100.7'], txt: ['tok'] }), at);
  const bad = judge(expected, seen({}), at);

  it('re-checks pending domains every 5 minutes for 7 days, then fails them', () => {
    expect(afterCheck(pending, bad, at)).toMatchObject({ nextCheckAt: new Date(at.getTime() + 300_000) });
    expect(afterCheck(pending, bad, new Date(at.getTime() + PENDING_FOR_MS))).toMatchObject({ status: 'failed', nextCheckAt: null });
  });

  it('takes a verified domain to failed only after 3 failed checks in a row, and back when it passes', () => {
    const verified = { status: 'verified' as const, failures: 0, pendingUntil: pending.pendingUntil, verifiedAt: at };
    expect(afterCheck(verified, bad, at)).toMatchObject({ status: 'verified', failures: 1 });
    expect(afterCheck({ ...verified, failures: 2 }, bad, at)).toMatchObject({ status: 'failed', failures: 3 });
    expect(afterCheck({ ...verified, status: 'failed', failures: 3 }, ok, at)).toMatchObject({ status: 'verified', failures: 0 });
    expect(afterCheck(pending, ok, at)).toMatchObject({ status: 'verified', verifiedAt: at, nextCheckAt: new Date(at.getTime() + 3_600_000) });
  });
});
