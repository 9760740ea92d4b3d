import type { LoginRequest, SignupRequest, User } from '@slipway/contracts';
import { AppError } from '../errors';
import type { Clock } from '../ports/clock';
import type { ApiTokenRepository, SessionRepository, UserRecord, UserRepository } from '../ports/repositories';
import type { Actor } from './actor';
import type { LoginThrottle } from './login-throttle';
import type { PasswordHasher } from './password';
import { newSecret, type SecretHasher } from './secrets';

export const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;
export const API_TOKEN_PREFIX = 'svc_';
// Writes of "last seen/used" are throttled so that reads stay reads on the hot path.
const SESSION_TOUCH_MS = 5 * 60 * 1000;
const TOKEN_TOUCH_MS = 60 * 1000;
const MAX_CREDENTIAL_LENGTH = 200;

export interface ClientMeta {
  ip: string | null;
  userAgent: string | null;
}

export interface NewSession {
  user: User;
  /** The cookie value; only its hash is stored. */
  token: string;
  expiresAt: Date;
}

export const toUser = (u: Pick<UserRecord, 'id' | 'email' | 'name' | 'createdAt'>): User => ({
  id: u.id,
  email: u.email,
  name: u.name,
  createdAt: u.createdAt.toISOString(),
});

export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

/** Accounts, sessions and the resolution of credentials (cookie or bearer) into an Actor. */
export class AuthService {
  private dummyHash?: Promise<string>;

  constructor(
    private readonly deps: {
      users: UserRepository;
      sessions: SessionRepository;
      tokens: ApiTokenRepository;
      passwords: PasswordHasher;
      secrets: SecretHasher;
      throttle: LoginThrottle;
      clock: Clock;
    },
  ) {}

  async signup(input: SignupRequest, meta: ClientMeta): Promise<NewSession> {
    const passwordHash = await this.deps.passwords.hash(input.password);
    const user = await this.deps.users.create({ email: normalizeEmail(input.email), name: input.name.trim(), passwordHash });
    if (!user) throw new AppError('email_taken', 'An account with this email already exists');
    return this.startSession(user, meta);
  }

  async login(input: LoginRequest, meta: ClientMeta & { ip: string }): Promise<NewSession> {
    const email = normalizeEmail(input.email);
    await this.deps.throttle.check(email, meta.ip);
    const user = await this.deps.users.findByEmail(email);
    // An unknown email costs the same argon2 work as a wrong password, so timing does not reveal accounts.
    const ok = user
      ? await this.deps.passwords.verify(user.passwordHash, input.password)
      : (await this.deps.passwords.verify(await this.dummy(), input.password), false);
    if (!user || !ok) {
      await this.deps.throttle.recordFailure(email, meta.ip);
      throw new AppError('invalid_credentials', 'The email or password is wrong');
    }
    await this.deps.throttle.recordSuccess(email);
    return this.startSession(user, meta);
  }

  async logout(actor: Actor): Promise<void> {
    if (actor.kind !== 'session') throw new AppError('session_required', 'Signing out needs the session cookie');
    await this.deps.sessions.revoke(actor.sessionId, this.deps.clock());
  }

  async me(actor: Actor): Promise<User> {
    const user = await this.deps.users.findById(actor.userId);
    if (!user) throw new AppError('unauthorized', 'The account no longer exists');
    return toUser(user);
  }

  /**
   * The actor of a `svc_session` cookie value; null when it is unknown, revoked or expired. `workspaceId` (a
   * well-formed id from the request path) is read along, so the authorization layer needs no second query.
   */
  async authenticateSession(token: string, workspaceId?: string): Promise<Actor | null> {
    if (!token || token.length > MAX_CREDENTIAL_LENGTH) return null;
    const now = this.deps.clock();
    const session = await this.deps.sessions.findActive(this.deps.secrets.hash(token), now, workspaceId);
    if (!session) return null;
    if (now.getTime() - session.lastSeenAt.getTime() > SESSION_TOUCH_MS) await this.deps.sessions.touch(session.id, now);
    return { kind: 'session', userId: session.userId, sessionId: session.id, membership: session.membership };
  }

  /** The actor of an API token; null when it is unknown, revoked, expired, or its creator left the workspace. */
  async authenticateBearer(token: string): Promise<Actor | null> {
    if (!token.startsWith(API_TOKEN_PREFIX) || token.length > MAX_CREDENTIAL_LENGTH) return null;
    const now = this.deps.clock();
    const found = await this.deps.tokens.findActive(this.deps.secrets.hash(token), now);
    if (!found) return null;
    if (!found.lastUsedAt || now.getTime() - found.lastUsedAt.getTime() > TOKEN_TOUCH_MS) {
      await this.deps.tokens.touch({ workspaceId: found.workspaceId, tokenId: found.id }, now);
    }
    return { kind: 'token', userId: found.userId, tokenId: found.id, workspaceId: found.workspaceId, membership: found.membership };
  }

  private async startSession(user: UserRecord, meta: ClientMeta): Promise<NewSession> {
    const token = newSecret();
    const expiresAt = new Date(this.deps.clock().getTime() + SESSION_TTL_MS);
    await this.deps.sessions.create({
      userId: user.id,
      tokenHash: this.deps.secrets.hash(token),
      expiresAt,
      ip: meta.ip,
      userAgent: meta.userAgent?.slice(0, 512) ?? null,
    });
    return { user: toUser(user), token, expiresAt };
  }

  private dummy(): Promise<string> {
    this.dummyHash ??= this.deps.passwords.hash('not-a-password-of-anyone');
    return this.dummyHash;
  }
}
