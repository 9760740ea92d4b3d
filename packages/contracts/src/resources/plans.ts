// Plans: the public catalog, and a workspace's plan with its limits, usage and minimums.
import { Count, listOf, NullableTimestamp, Timestamp, Uuid } from '../common';
import type { Resource } from '../resource';

export const ResourceSize = {
  type: 'object',
  additionalProperties: false,
  required: ['cpuMillis', 'memoryMb', 'diskMb'],
  properties: { cpuMillis: Count, memoryMb: Count, diskMb: Count },
} as const;

export const PlanLimits = {
  type: 'object',
  additionalProperties: false,
  required: ['cpuMillis', 'memoryMb', 'maxMembers', 'diskMb'],
  properties: {
    cpuMillis: Count,
    memoryMb: Count,
    maxMembers: Count,
    diskMb: { type: ['integer', 'null'], minimum: 0, description: "disk of all apps' project folders and databases (MB); null: a plan version without a disk limit" },
  },
} as const;

export const Minimums = {
  type: 'object',
  additionalProperties: false,
  required: ['app', 'postgres', 'mysql', 'redis', 'mongodb'],
  description: 'the smallest size each resource type may be created or resized to',
  properties: { app: ResourceSize, postgres: ResourceSize, mysql: ResourceSize, redis: ResourceSize, mongodb: ResourceSize },
} as const;

export const PlanSummary = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'slug', 'name', 'kind', 'version', 'priceCents'],
  properties: {
    id: Uuid,
    slug: { type: 'string' },
    name: { type: 'string' },
    kind: { type: 'string', enum: ['trial', 'paid'] },
    version: { type: 'integer', minimum: 1 },
    priceCents: Count,
  },
} as const;

export const WorkspacePlan = {
  type: 'object',
  additionalProperties: false,
  required: ['status', 'plan', 'trialEndsAt', 'graceEndsAt', 'suspendedAt', 'limits', 'usage', 'overQuota', 'hasExtras', 'minimums'],
  properties: {
    status: {
      type: 'string',
      enum: ['none', 'active', 'past_due'],
      description: 'billing status: none (trial, nothing paid), active (paid), past_due (payment failed)',
    },
    plan: PlanSummary,
    trialEndsAt: Timestamp,
    graceEndsAt: Timestamp,
    suspendedAt: NullableTimestamp,
    limits: { ...PlanLimits, description: 'effective limits: the plan plus extras' },
    usage: {
      type: 'object',
      additionalProperties: false,
      required: ['cpuMillis', 'memoryMb', 'diskMb', 'members'],
      description: 'reserved by every app and database (running or stopped), and the member count',
      properties: { cpuMillis: Count, memoryMb: Count, diskMb: Count, members: Count },
    },
    overQuota: { type: 'boolean', description: 'usage is above a limit (after a downgrade or when extras were removed)' },
    hasExtras: { type: 'boolean' },
    minimums: Minimums,
  },
} as const;

export const CatalogPlan = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'slug', 'name', 'kind', 'version', 'priceCents', 'currency', 'limits'],
  properties: {
    id: Uuid,
    slug: { type: 'string' },
    name: { type: 'string' },
    kind: { type: 'string', enum: ['paid'] },
    version: { type: 'integer', minimum: 1 },
    priceCents: { ...Count, description: 'monthly price in cents' },
    currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 code' },
    limits: PlanLimits,
  },
} as const;

export const PlanCatalog = listOf(CatalogPlan);

export const PLANS = {
  tag: { name: 'plans', description: 'the plan catalog and a workspace plan, limits and usage' },
  schemas: { ResourceSize, PlanLimits, Minimums, PlanSummary, WorkspacePlan, CatalogPlan, PlanCatalog },
  operations: {
    getWorkspacePlan: {
      method: 'get',
      path: '/v1/workspaces/{workspaceId}/plan',
      tag: 'plans',
      summary: "The workspace's plan, effective limits, reserved usage and minimums",
      auth: 'any',
      permission: 'plan.read',
      success: { status: 200, description: 'plan and usage', schema: WorkspacePlan },
    },
    listPlans: {
      method: 'get',
      path: '/v1/plans',
      tag: 'plans',
      summary: 'The public catalog: the current version of each paid plan, cheapest first',
      auth: 'public',
      success: { status: 200, description: 'paid plans', schema: PlanCatalog },
    },
  },
} as const satisfies Resource;
