// Members of a workspace and their roles.
import { listOf, Ok, Role, Timestamp, Uuid, WORKSPACE_WRITE_DENIALS } from '../common';
import type { Resource } from '../resource';
import { Email } from './auth';

export const Member = {
  type: 'object',
  additionalProperties: false,
  required: ['userId', 'email', 'name', 'role', 'createdAt'],
  properties: { userId: Uuid, email: { type: 'string' }, name: { type: 'string' }, role: Role, createdAt: Timestamp },
} as const;

export const MemberList = listOf(Member);

export const AddMemberRequest = {
  type: 'object',
  additionalProperties: false,
  required: ['email', 'role'],
  properties: { email: Email, role: Role },
} as const;

export const UpdateMemberRequest = {
  type: 'object',
  additionalProperties: false,
  required: ['role'],
  properties: { role: Role },
} as const;

export const MEMBERS = {
  tag: { name: 'members', description: 'members and roles: owner, admin, developer, viewer' },
  schemas: { Member, MemberList, AddMemberRequest, UpdateMemberRequest },
  operations: {
    listMembers: {
      method: 'get',
      path: '/v1/workspaces/{workspaceId}/members',
      tag: 'members',
      summary: 'Members and their roles',
      auth: 'any',
      permission: 'members.read',
      success: { status: 200, description: 'members, oldest first', schema: MemberList },
    },
    addMember: {
      method: 'post',
      path: '/v1/workspaces/{workspaceId}/members',
      tag: 'members',
      summary: 'Add an existing user by email (owner, admin; only owners add owners)',
      auth: 'any',
      permission: 'members.write',
      body: AddMemberRequest,
      success: { status: 201, description: 'the member', schema: Member },
      errors: { 402: ['quota_exceeded'], 403: [...WORKSPACE_WRITE_DENIALS, 'owner_required'], 404: ['not_found'], 409: ['already_member'] },
    },
    updateMember: {
      method: 'patch',
      path: '/v1/workspaces/{workspaceId}/members/{userId}',
      tag: 'members',
      summary: "Change a member's role (owner, admin; only owners change owners)",
      auth: 'any',
      permission: 'members.write',
      body: UpdateMemberRequest,
      success: { status: 200, description: 'the member', schema: Member },
      errors: { 403: [...WORKSPACE_WRITE_DENIALS, 'owner_required'], 409: ['last_owner'] },
    },
    removeMember: {
      method: 'delete',
      path: '/v1/workspaces/{workspaceId}/members/{userId}',
      tag: 'members',
      summary: "Remove a member (owner, admin; only owners remove owners); the member's tokens are revoked",
      auth: 'any',
      permission: 'members.write',
      success: { status: 200, description: 'removed', schema: Ok },
      errors: { 403: [...WORKSPACE_WRITE_DENIALS, 'owner_required'], 409: ['last_owner'] },
    },
  },
} as const satisfies Resource;
