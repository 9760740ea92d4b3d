import type { CertificateState, DnsObservation, DomainRecord, DomainChanges, DomainStatusValue, StoredCheck } from './domain.ports';

export const PENDING_RECHECK_MS = 5 * 60_000;
export const PENDING_FOR_MS = 7 * 24 * 3600_000;
export const VERIFIED_RECHECK_MS = 3600_000;
/** Consecutive failed checks that take a verified domain to failed (and its route down). */
export const FAILURES_TO_FAIL = 3;

export interface Expected {
  hostname: string;
  txtName: string;
  txtValue: string;
  a: string[];
  aaaa: string[];
  /** The app's own host a CNAME may point at (subdomains only); null: no CNAME accepted. */
  cname: string | null;
}

const norm = (name: string) => name.toLowerCase().replace(/\.$/, '');
const list = (ips: string[]) => (ips.length ? ips.join(', ') : 'nothing');

/** Whether what the server saw proves the domain, and if not, why in words a user can act on. */
export function judge(expected: Expected, seen: DnsObservation, at: Date): StoredCheck {
  const problems: string[] = [];
  const txt = seen.txt.includes(expected.txtValue);
  if (!txt) {
    problems.push(
      seen.txt.length === 0
        ? `TXT record ${expected.txtName} not found`
        : `TXT record ${expected.txtName} holds ${seen.txt.map((t) => `"${t}"`).join(', ')}, expected "${expected.txtValue}"`,
    );
  }
  const cnameEnd = seen.cnames.length ? norm(seen.cnames[seen.cnames.length - 1]!) : null;
  const viaCname = expected.cname !== null && cnameEnd === norm(expected.cname);
  if (!viaCname) {
    if (cnameEnd && expected.cname === null) problems.push(`${expected.hostname} is a CNAME to ${cnameEnd}: an apex name needs A records pointing at ${list(expected.a)}`);
    else if (seen.a.length === 0 && seen.aaaa.length === 0) {
      problems.push(`A record ${expected.hostname} not found, expected ${list(expected.a)}${expected.cname ? ` (or a CNAME to ${expected.cname})` : ''}`);
    } else {
      const wrongA = seen.a.filter((ip) => !expected.a.includes(ip));
      const wrongAaaa = seen.aaaa.filter((ip) => !expected.aaaa.map((x) => x.toLowerCase()).includes(ip.toLowerCase()));
      if (wrongA.length) problems.push(`A record points at ${wrongA.join(', ')}, expected ${list(expected.a)}`);
      if (wrongAaaa.length) problems.push(`AAAA record points at ${wrongAaaa.join(', ')}, expected ${list(expected.aaaa)}`);
    }
  }
  if (seen.error) problems.push(seen.error);
  return { a: seen.a, aaaa: seen.aaaa, txt, cname: cnameEnd, at: at.toISOString(), error: problems.length ? problems.join('; ') : null };
}

/**
 * The state after a check: pending domains re-checked every 5 minutes until `pendingUntil`, then failed; verified
 * ones hourly, failed only after 3 checks in a row did not pass; a failed domain that passes is verified again.
 * Domains that failed after having been verified keep their hourly re-check (they come back when DNS does).
 */
export function afterCheck(d: Pick<DomainRecord, 'status' | 'failures' | 'pendingUntil' | 'verifiedAt'>, check: StoredCheck, now: Date): DomainChanges {
  const at = (ms: number) => new Date(now.getTime() + ms);
  if (check.error === null) {
    return { status: 'verified', check, failures: 0, nextCheckAt: at(VERIFIED_RECHECK_MS), verifiedAt: d.status === 'verified' ? d.verifiedAt : now };
  }
  if (d.status === 'verified') {
    const failures = d.failures + 1;
    const status: DomainStatusValue = failures >= FAILURES_TO_FAIL ? 'failed' : 'verified';
    return { status, check, failures, nextCheckAt: at(VERIFIED_RECHECK_MS) };
  }
  if (d.status === 'failed') return { check, failures: d.failures + 1, nextCheckAt: d.verifiedAt ? at(VERIFIED_RECHECK_MS) : null };
  if (now.getTime() >= d.pendingUntil.getTime()) return { status: 'failed', check, failures: d.failures + 1, nextCheckAt: null };
  return { check, failures: d.failures + 1, nextCheckAt: at(PENDING_RECHECK_MS) };
}

export const NO_CERTIFICATE: CertificateState = { status: 'none', issuer: null, notAfter: null, error: null };
