// Workspaces: the tenant every other resource but accounts and nodes belongs to.
import { listOf, Ok, Role, Timestamp, Uuid, WORKSPACE_WRITE_DENIALS } from '../common';
import type { Resource } from '../resource';

const WorkspaceName = { type: 'string', minLength: 1, maxLength: 64, pattern: '\\S', description: '1 to 64 characters, not only spaces' } as const;
export const WorkspaceSlug = {
  type: 'string',
  minLength: 1,
  maxLength: 30,
  pattern: '^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$',
  description: 'lowercase DNS label of at most 30 characters, unique across the platform',
} as const;

export const Workspace = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'slug', 'role', 'suspended', 'createdAt'],
  properties: {
    id: Uuid,
    name: { type: 'string' },
    slug: { type: 'string' },
    role: Role,
    suspended: { type: 'boolean', description: 'true once the grace period ended without a paid plan: mutations answer 403 workspace_suspended' },
    server: {
      type: 'object',
      additionalProperties: false,
      required: ['status', 'since'],
      description:
        "The workspace's server as the control plane sees it. unreachable: its health checks fail since `since`; its apps " +
        'keep serving, nothing is moved or deleted, and operations that change what it runs answer 503 node_unreachable until it answers again.',
      properties: {
        status: { enum: ['reachable', 'unreachable'] },
        since: { anyOf: [Timestamp, { type: 'null' }] },
      },
    },
    createdAt: Timestamp,
  },
} as const;

export const WorkspaceList = listOf(Workspace);

export const CreateWorkspaceRequest = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: { name: WorkspaceName },
} as const;

export const UpdateWorkspaceRequest = {
  type: 'object',
  additionalProperties: false,
  properties: { name: WorkspaceName, slug: WorkspaceSlug },
} as const;

export const WORKSPACES = {
  tag: { name: 'workspaces', description: 'workspaces; the caller sees only those it is a member of' },
  schemas: { Workspace, WorkspaceList, CreateWorkspaceRequest, UpdateWorkspaceRequest },
  operations: {
    listWorkspaces: {
      method: 'get',
      path: '/v1/workspaces',
      tag: 'workspaces',
      summary: "The caller's workspaces (with a token: its one workspace)",
      auth: 'any',
      success: { status: 200, description: 'workspaces, oldest first', schema: WorkspaceList },
    },
    createWorkspace: {
      method: 'post',
      path: '/v1/workspaces',
      tag: 'workspaces',
      summary: 'Create a workspace; the caller becomes its owner',
      description:
        'The slug derives from the name (suffixed when taken). The workspace starts on the trial plan (14 days, then 7 days ' +
        'of grace) and is placed on the online, uncordoned server with the most free room for the plan\'s first app ' +
        '(vCPU, memory, disk above its reserve). 503 node_unavailable: no server is online and uncordoned; 503 no_capacity: ' +
        'none has room (details name the resource, what the first app needs and what the roomiest server has).',
      auth: 'session',
      body: CreateWorkspaceRequest,
      success: { status: 201, description: 'the workspace', schema: Workspace },
      errors: { 503: ['node_unavailable', 'no_capacity'] },
    },
    getWorkspace: {
      method: 'get',
      path: '/v1/workspaces/{workspaceId}',
      tag: 'workspaces',
      summary: 'A workspace',
      auth: 'any',
      permission: 'workspace.read',
      success: { status: 200, description: 'the workspace', schema: Workspace },
    },
    updateWorkspace: {
      method: 'patch',
      path: '/v1/workspaces/{workspaceId}',
      tag: 'workspaces',
      summary: 'Rename a workspace or change its slug (owner, admin)',
      auth: 'any',
      permission: 'workspace.update',
      body: UpdateWorkspaceRequest,
      success: { status: 200, description: 'the workspace', schema: Workspace },
      errors: { 403: WORKSPACE_WRITE_DENIALS, 409: ['name_taken'] },
    },
    deleteWorkspace: {
      method: 'delete',
      path: '/v1/workspaces/{workspaceId}',
      tag: 'workspaces',
      summary: 'Delete a workspace permanently (owners only)',
      description:
        'The workspace disappears from the API at once; its apps, databases, backups, domains, tokens and members are torn ' +
        'down by a background job.',
      auth: 'any',
      permission: 'workspace.delete',
      success: { status: 200, description: 'deleted', schema: Ok },
      errors: { 403: ['owner_required'] },
    },
  },
} as const satisfies Resource;
