// GitHub as a source (issue 16): the platform's GitHub App, linked to workspaces through a signed `state`, the
// repositories an installation reaches, and the webhook endpoint. Without the App's settings every operation here
// answers 503 `github_not_configured`.
import { listOf, Timestamp, Uuid } from '../common';
import type { Resource } from '../resource';

const NOT_CONFIGURED = ['github_not_configured', 'github_unavailable'] as const;

export const GithubInstallation = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'account', 'suspended', 'createdAt'],
  properties: {
    id: { type: 'integer', minimum: 1, description: "GitHub's installation id" },
    account: {
      type: 'object',
      additionalProperties: false,
      required: ['login', 'type'],
      properties: { login: { type: 'string' }, type: { type: 'string', description: 'User or Organization' } },
    },
    suspended: { type: 'boolean' },
    createdAt: { ...Timestamp, description: 'when it was linked to this workspace' },
  },
} as const;

export const GithubInstallationList = listOf(GithubInstallation);

export const GithubRepository = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'fullName', 'private', 'defaultBranch'],
  properties: {
    id: { type: 'integer', minimum: 1, description: "GitHub's repository id: apps are keyed by it (it survives renames and transfers)" },
    fullName: { type: 'string', description: 'owner/name' },
    private: { type: 'boolean' },
    defaultBranch: { type: 'string' },
  },
} as const;

export const GithubRepositoryPage = {
  type: 'object',
  additionalProperties: false,
  required: ['data', 'page', 'perPage', 'total', 'nextPage'],
  properties: {
    data: { type: 'array', items: GithubRepository },
    page: { type: 'integer', minimum: 1 },
    perPage: { type: 'integer', minimum: 1 },
    total: { type: 'integer', minimum: 0, description: 'repositories the installation reaches' },
    nextPage: { type: ['integer', 'null'], description: 'pass as `page` for the next page; null on the last' },
  },
} as const;

export const GithubInstallUrl = {
  type: 'object',
  additionalProperties: false,
  required: ['url', 'state', 'expiresAt'],
  properties: {
    url: { type: 'string', description: "the GitHub App's install page, with `state`" },
    state: { type: 'string', description: 'signed (HMAC-SHA256), names this workspace, expires after 15 minutes' },
    expiresAt: Timestamp,
  },
} as const;

export const GithubSetupResult = {
  type: 'object',
  additionalProperties: false,
  required: ['workspaceId', 'installation'],
  properties: { workspaceId: Uuid, installation: GithubInstallation },
} as const;

export const GithubWebhookResult = {
  type: 'object',
  additionalProperties: false,
  required: ['accepted', 'duplicate', 'event'],
  properties: {
    accepted: { type: 'boolean', description: 'false for events the platform does not act on (answered, dropped)' },
    duplicate: { type: 'boolean', description: 'a delivery id seen before: nothing new was queued' },
    event: { type: 'string' },
  },
} as const;

export const GITHUB = {
  tag: {
    name: 'github',
    description:
      'GitHub as a source: one GitHub App per platform (settings SLIPWAY_GITHUB_*), its installations linked to ' +
      'workspaces through a signed `state`, repositories to pick from, push webhooks that deploy',
  },
  schemas: { GithubInstallation, GithubInstallationList, GithubRepository, GithubRepositoryPage, GithubInstallUrl, GithubSetupResult, GithubWebhookResult },
  operations: {
    getGithubInstallUrl: {
      method: 'get',
      path: '/v1/workspaces/{workspaceId}/github/install-url',
      tag: 'github',
      summary: "The GitHub App's install page for this workspace, with a signed, expiring `state`",
      description:
        'Send the user to `url`. GitHub sends them back to the setup URL with `installation_id` and this `state`, which ' +
        'is all that links the installation to this workspace (the id alone can be forged by anyone).',
      auth: 'any',
      permission: 'apps.write',
      success: { status: 200, description: 'the install URL', schema: GithubInstallUrl },
      errors: { 403: ['forbidden', 'workspace_suspended'], 503: NOT_CONFIGURED },
    },
    completeGithubSetup: {
      method: 'get',
      path: '/v1/github/setup',
      tag: 'github',
      summary: 'Setup callback of the GitHub App: links `installation_id` to the workspace its `state` names',
      description:
        "The GitHub App's Setup URL. The `state` must be one this platform issued and not expired (400 " +
        '`github_state_invalid`); the installation is then checked with GitHub (404 `github_installation_not_found`) ' +
        'and linked; one linked to another workspace is 409 `github_installation_taken`.',
      auth: 'public',
      query: {
        type: 'object',
        additionalProperties: true,
        required: ['installation_id', 'state'],
        properties: {
          installation_id: { type: 'integer', minimum: 1, maximum: 9007199254740991 },
          state: { type: 'string', minLength: 1, maxLength: 1024 },
          setup_action: { type: 'string', maxLength: 64 },
        },
      },
      success: { status: 200, description: 'the linked installation', schema: GithubSetupResult },
      errors: { 400: ['github_state_invalid'], 404: ['github_installation_not_found'], 409: ['github_installation_taken'], 503: NOT_CONFIGURED },
    },
    listGithubInstallations: {
      method: 'get',
      path: '/v1/workspaces/{workspaceId}/github/installations',
      tag: 'github',
      summary: 'GitHub App installations linked to this workspace',
      auth: 'any',
      permission: 'apps.read',
      success: { status: 200, description: 'installations', schema: GithubInstallationList },
      errors: { 503: NOT_CONFIGURED },
    },
    listGithubRepositories: {
      method: 'get',
      path: '/v1/workspaces/{workspaceId}/github/installations/{installationId}/repositories',
      tag: 'github',
      summary: 'Repositories an installation reaches, from GitHub (paged)',
      description: 'An installation not linked to this workspace (another workspace\'s included) is 404.',
      auth: 'any',
      permission: 'apps.read',
      query: {
        type: 'object',
        additionalProperties: false,
        properties: { page: { type: 'integer', minimum: 1, maximum: 10000, default: 1 }, perPage: { type: 'integer', minimum: 1, maximum: 100, default: 30 } },
      },
      success: { status: 200, description: 'a page of repositories', schema: GithubRepositoryPage },
      errors: { 404: ['github_installation_not_found'], 503: NOT_CONFIGURED },
    },
    receiveGithubWebhook: {
      method: 'post',
      path: '/v1/github/webhooks',
      tag: 'github',
      summary: "GitHub App webhook deliveries (push, installation, installation_repositories)",
      description:
        '`X-Hub-Signature-256` is checked in constant time over the raw body before anything is parsed (401 ' +
        '`invalid_signature`). Deliveries are idempotent by `X-GitHub-Delivery`. The answer comes at once; the work ' +
        '(deployments of autoDeploy apps, access flags) is done by a job. Configure the webhook with content type ' +
        'application/json.',
      auth: 'public',
      rawBody: { contentType: 'application/json', description: 'the delivery, as GitHub sent it (up to 25 MB)' },
      success: { status: 202, description: 'accepted (or a duplicate, or an event that is not acted on)', schema: GithubWebhookResult },
      errors: { 400: ['invalid_json', 'validation_failed'], 401: ['invalid_signature'], 503: ['github_not_configured'] },
    },
  },
} as const satisfies Resource;
