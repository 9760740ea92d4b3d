import type { ApiToken, CreatedApiToken, CreateTokenRequest } from '@slipway/contracts';
import type { WorkspaceAccess } from '../auth/actor';
import { API_TOKEN_PREFIX } from '../auth/auth.service';
import { can } from '../auth/permissions';
import { newSecret, type SecretHasher } from '../auth/secrets';
import { AppError } from '../errors';
import type { Clock } from '../ports/clock';
import type { ApiTokenRecord, ApiTokenRepository } from '../ports/repositories';

const DAY_MS = 24 * 3600 * 1000;
const SHOWN_PREFIX_LENGTH = API_TOKEN_PREFIX.length + 8;

export const toApiToken = (t: ApiTokenRecord): ApiToken => ({
  id: t.id,
  name: t.name,
  prefix: t.prefix,
  createdBy: t.createdBy,
  createdAt: t.createdAt.toISOString(),
  expiresAt: t.expiresAt?.toISOString() ?? null,
  lastUsedAt: t.lastUsedAt?.toISOString() ?? null,
});

/**
 * API tokens: bearer credentials scoped to one workspace, acting with their creator's role there. Owners and
 * admins see and revoke every token of the workspace; others only their own.
 */
export class TokenService {
  constructor(private readonly deps: { tokens: ApiTokenRepository; secrets: SecretHasher; clock: Clock }) {}

  async create(access: WorkspaceAccess, input: CreateTokenRequest): Promise<CreatedApiToken> {
    const value = newSecret(API_TOKEN_PREFIX);
    const now = this.deps.clock();
    const record = await this.deps.tokens.create({
      workspaceId: access.workspace.id,
      createdById: access.actor.userId,
      name: input.name.trim(),
      tokenHash: this.deps.secrets.hash(value),
      prefix: value.slice(0, SHOWN_PREFIX_LENGTH),
      expiresAt: input.expiresInDays ? new Date(now.getTime() + input.expiresInDays * DAY_MS) : null,
    });
    return { ...toApiToken(record), token: value };
  }

  async list(access: WorkspaceAccess): Promise<ApiToken[]> {
    const tokens = await this.deps.tokens.list({ workspaceId: access.workspace.id, createdById: this.ownOnly(access) });
    return tokens.map(toApiToken);
  }

  async revoke(access: WorkspaceAccess, tokenId: string): Promise<void> {
    const revoked = await this.deps.tokens.revoke(
      { workspaceId: access.workspace.id, tokenId, createdById: this.ownOnly(access) },
      this.deps.clock(),
    );
    if (!revoked) throw new AppError('not_found', 'The token was not found');
  }

  /** Roles that may not manage members see only their own tokens. */
  private ownOnly(access: WorkspaceAccess): string | undefined {
    return can(access.role, 'members.write') ? undefined : access.actor.userId;
  }
}
