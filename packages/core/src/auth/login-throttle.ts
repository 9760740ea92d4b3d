import { createHash } from 'node:crypto';
import { AppError } from '../errors';
import type { RateCounter } from '../ports/rate-counter';

export interface LoginThrottleLimits {
  /** Failed logins for one email within the window before further attempts are refused. */
  perEmail: number;
  /** Failed logins from one IP (any email) within the window. */
  perIp: number;
  windowSeconds: number;
}

export const DEFAULT_LOGIN_LIMITS: LoginThrottleLimits = { perEmail: 5, perIp: 30, windowSeconds: 15 * 60 };

/**
 * Counts failed logins per email and per client IP. Once either count reaches its limit, every attempt (even
 * with the right password) is refused with 429 `too_many_attempts` and Retry-After until the window ends. The
 * check runs before the password is hashed, so a flood costs no argon2 work. Emails are hashed in the key.
 */
export class LoginThrottle {
  constructor(
    private readonly counter: RateCounter,
    private readonly limits: LoginThrottleLimits = DEFAULT_LOGIN_LIMITS,
  ) {}

  async check(email: string, ip: string): Promise<void> {
    const [byEmail, byIp] = await this.counter.peek([this.emailKey(email), this.ipKey(ip)]);
    const blocked = [
      byEmail!.count >= this.limits.perEmail ? byEmail!.ttlSeconds : 0,
      byIp!.count >= this.limits.perIp ? byIp!.ttlSeconds : 0,
    ];
    const wait = Math.max(...blocked);
    if (wait > 0) throw new AppError('too_many_attempts', 'Too many failed sign-in attempts; try again later', undefined, wait);
  }

  recordFailure(email: string, ip: string): Promise<void> {
    return this.counter.hit([this.emailKey(email), this.ipKey(ip)], this.limits.windowSeconds);
  }

  /** A successful login clears the email's count (not the IP's: one success must not unlock a spraying IP). */
  recordSuccess(email: string): Promise<void> {
    return this.counter.reset(this.emailKey(email));
  }

  private emailKey(email: string): string {
    return `login:email:${createHash('sha256').update(email).digest('hex').slice(0, 32)}`;
  }

  private ipKey(ip: string): string {
    return `login:ip:${ip}`;
  }
}
