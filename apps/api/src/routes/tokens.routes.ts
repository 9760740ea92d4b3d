import type { TokenService } from '@slipway/core';
import type { HandlerTable } from '../http/operations';

export function tokenRoutes(s: { tokens: TokenService }): HandlerTable {
  return {
    listTokens: async ({ access }) => ({ data: await s.tokens.list(access) }),
    createToken: ({ access, body }) => s.tokens.create(access, body),
    revokeToken: async ({ access, params }) => {
      await s.tokens.revoke(access, params.tokenId);
      return { ok: true };
    },
  };
}
