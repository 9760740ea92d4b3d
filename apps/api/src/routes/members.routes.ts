import type { MemberService } from '@slipway/core';
import type { HandlerTable } from '../http/operations';

export function memberRoutes(s: { members: MemberService }): HandlerTable {
  return {
    listMembers: async ({ access }) => ({ data: await s.members.list(access) }),
    addMember: ({ access, body }) => s.members.add(access, body),
    updateMember: ({ access, params, body }) => s.members.update(access, params.userId, body),
    removeMember: async ({ access, params }) => {
      await s.members.remove(access, params.userId);
      return { ok: true };
    },
  };
}
