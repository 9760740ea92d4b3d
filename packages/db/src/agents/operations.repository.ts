import { sourcesOf, uuidv7, type OperationRecord, type OperationStatus, type OperationStore, type OwnerRepository, type ResourceKind } from '@slipway/core';
import type { Pool } from 'pg';
import type { Db } from '../client';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface RawRow {
  id: string;
  workspace_id: string | null;
  node_id: string | null;
  kind: string;
  status: string;
  payload: unknown;
  result: unknown;
  error: string | null;
  attempts: number;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}
const fromRaw = (r: RawRow): OperationRecord => ({
  id: r.id,
  workspaceId: r.workspace_id,
  nodeId: r.node_id,
  kind: r.kind,
  status: r.status as OperationStatus,
  payload: (r.payload ?? {}) as Record<string, unknown>,
  result: r.result ?? null,
  error: r.error,
  attempts: r.attempts,
  createdAt: r.created_at,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
});

/**
 * Operation rows of agent commands; every status change is one conditional UPDATE … RETURNING. The two
 * statements on the dispatch path (create on a node, claim a try) are single SQL round trips. Every statement is
 * plain SQL returning whole rows, so there is one row mapping (`fromRaw`).
 */
export class PrismaOperationStore implements OperationStore {
  /** With a node-postgres pool the dispatch path's statements run as prepared statements on it (a third of Prisma's CPU). */
  constructor(
    private readonly db: Db,
    private readonly sql?: Pool,
  ) {}

  private async query<T>(name: string, text: string, values: unknown[]): Promise<T[]> {
    if (this.sql) return (await this.sql.query({ name, text, values })).rows as T[];
    return this.db.$queryRawUnsafe<T[]>(text, ...values);
  }

  async create(input: { kind: string; nodeId: string | null; workspaceId: string | null; payload: Record<string, unknown> }): Promise<OperationRecord> {
    const rows = await this.query<RawRow>(
      'operations_create',
      `INSERT INTO operations (id, workspace_id, node_id, kind, status, payload, attempts, created_at)
       VALUES ($1::uuid, $2::uuid, $3::uuid, $4, 'queued', $5::jsonb, 0, now())
       RETURNING *`,
      [uuidv7(), input.workspaceId, input.nodeId, input.kind, JSON.stringify(input.payload)],
    );
    return fromRaw(rows[0]!);
  }

  async createOnNode(input: { kind: string; nodeId: string; workspaceId: string | null; payload: Record<string, unknown> }): Promise<OperationRecord | null> {
    const rows = await this.query<RawRow>(
      'operations_create_on_node',
      `INSERT INTO operations (id, workspace_id, node_id, kind, status, payload, attempts, created_at)
       SELECT $1::uuid, $2::uuid, n.id, $3, 'queued', $4::jsonb, 0, now() FROM nodes n WHERE n.id = $5::uuid
       RETURNING *`,
      [uuidv7(), input.workspaceId, input.kind, JSON.stringify(input.payload), input.nodeId],
    );
    return rows[0] ? fromRaw(rows[0]) : null;
  }

  async claim(operationId: string, now: Date): Promise<{ op: OperationRecord; node: { id: string; name: string; grpcAddress: string } | null } | null> {
    const rows = await this.query<RawRow & { node_name: string | null; node_address: string | null }>(
      'operations_claim',
      `WITH claimed AS (
         UPDATE operations SET status = 'running', attempts = attempts + 1, error = NULL, started_at = COALESCE(started_at, $2::timestamptz)
         WHERE id = $1::uuid AND status = ANY($3::text[])
         RETURNING *)
       SELECT claimed.*, n.name AS node_name, n.grpc_address AS node_address FROM claimed LEFT JOIN nodes n ON n.id = claimed.node_id`,
      [operationId, now, sourcesOf('running')],
    );
    const r = rows[0];
    if (!r) return null;
    return { op: fromRaw(r), node: r.node_id && r.node_name && r.node_address ? { id: r.node_id, name: r.node_name, grpcAddress: r.node_address } : null };
  }

  async get(operationId: string): Promise<OperationRecord | null> {
    const rows = await this.query<RawRow>('operations_get', 'SELECT * FROM operations WHERE id = $1::uuid', [operationId]);
    return rows[0] ? fromRaw(rows[0]) : null;
  }

  async move(
    operationId: string,
    from: readonly OperationStatus[],
    to: OperationStatus,
    changes: { result?: unknown; error?: string | null; startedAt?: Date; finishedAt?: Date; incrementAttempts?: boolean } = {},
  ): Promise<OperationRecord | null> {
    const setResult = changes.result !== undefined;
    const setError = changes.error !== undefined;
    const rows = await this.query<RawRow>(
      'operations_move',
      `UPDATE operations SET
         status = $3,
         result = CASE WHEN $4::boolean THEN $5::jsonb ELSE result END,
         error = CASE WHEN $6::boolean THEN $7::text ELSE error END,
         started_at = COALESCE($8::timestamptz, started_at),
         finished_at = COALESCE($9::timestamptz, finished_at),
         attempts = attempts + $10::int
       WHERE id = $1::uuid AND status = ANY($2::text[])
       RETURNING *`,
      [
        operationId,
        [...from],
        to,
        setResult,
        setResult ? JSON.stringify(changes.result ?? null) : null,
        setError,
        changes.error ?? null,
        changes.startedAt ?? null,
        changes.finishedAt ?? null,
        changes.incrementAttempts ? 1 : 0,
      ],
    );
    return rows[0] ? fromRaw(rows[0]) : null;
  }

  async listQueuedBefore(before: Date, limit: number): Promise<OperationRecord[]> {
    const rows = await this.query<RawRow>(
      'operations_queued_before',
      `SELECT * FROM operations WHERE status = 'queued' AND created_at < $1::timestamptz ORDER BY created_at ASC LIMIT $2::int`,
      [before, limit],
    );
    return rows.map(fromRaw);
  }
}

export class PrismaOwnerRepository implements OwnerRepository {
  constructor(private readonly db: Db) {}

  async existingWorkspaceIds(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db.workspace.findMany({ where: { id: { in: ids } }, select: { id: true } });
    return new Set(rows.map((r) => r.id));
  }

  async deletedWorkspaces(ids: string[]): Promise<Map<string, string[]>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.$queryRaw<{ id: string; app_ids: string[] }[]>`
      SELECT w.id::text AS id, COALESCE(array_agg(a.id::text) FILTER (WHERE a.id IS NOT NULL), '{}') AS app_ids
      FROM workspaces w
      LEFT JOIN apps a ON a.workspace_id = w.id
      WHERE w.id::text = ANY(${ids}::text[]) AND w.deleted_at IS NOT NULL
        -- Its teardown still at work removes what it holds itself.
        AND NOT EXISTS (SELECT 1 FROM operations o WHERE o.workspace_id = w.id AND o.kind = 'workspace.teardown' AND o.status IN ('queued', 'running'))
      GROUP BY w.id`;
    return new Map(rows.map((r) => [r.id, r.app_ids]));
  }

  async placedOn(kind: ResourceKind, id: string): Promise<string | null> {
    if (!UUID.test(id)) return null;
    if (kind === 'database') return (await this.db.database.findUnique({ where: { id }, select: { nodeId: true } }))?.nodeId ?? null;
    return (await this.db.app.findUnique({ where: { id }, select: { workspace: { select: { nodeId: true } } } }))?.workspace.nodeId ?? null;
  }

  async movedAway(ids: string[], nodeId: string): Promise<Map<string, string[]>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.$queryRaw<{ id: string; app_ids: string[] }[]>`
      SELECT w.id::text AS id, COALESCE(array_agg(a.id::text) FILTER (WHERE a.id IS NOT NULL), '{}') AS app_ids
      FROM workspaces w
      LEFT JOIN apps a ON a.workspace_id = w.id
      WHERE w.id::text = ANY(${ids}::text[]) AND w.deleted_at IS NULL AND w.node_id IS NOT NULL AND w.node_id <> ${nodeId}::uuid
        -- A database's data is judged a leftover only when its row places it on another server (a move's switch
        -- records the target; a copy on a target that died halfway is not the database's).
        AND NOT EXISTS (SELECT 1 FROM databases d WHERE d.workspace_id = w.id AND d.deleted_at IS NULL AND (d.node_id IS NULL OR d.node_id = ${nodeId}::uuid))
      GROUP BY w.id`;
    return new Map(rows.map((r) => [r.id, r.app_ids]));
  }
}
