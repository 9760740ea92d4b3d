import { readFileSync } from 'node:fs';
import { OPERATOR_OPERATIONS, operatorApiDocument, operatorErrors } from './document';
import { createOperatorValidators } from './validation';
import { OPERATOR_DOCUMENT_FILE } from './write-document';

describe('the operator API document', () => {
  it('is committed as docs/operator-api.json, as rendered (npx tsx packages/contracts/src/operator/write-document.ts)', () => {
    expect(JSON.parse(readFileSync(OPERATOR_DOCUMENT_FILE, 'utf8'))).toEqual(operatorApiDocument());
  });

  it('is OpenAPI 3.1 with an operationId and a summary on every operation, and 500/503 everywhere', () => {
    const doc = operatorApiDocument() as { openapi: string; paths: Record<string, Record<string, { operationId: string; summary: string; responses: Record<string, unknown> }>> };
    expect(doc.openapi).toBe('3.1.0');
    const ops = Object.values(doc.paths).flatMap((item) => Object.values(item));
    expect(ops.map((o) => o.operationId).sort()).toEqual(Object.keys(OPERATOR_OPERATIONS).sort());
    for (const op of ops) expect({ id: op.operationId, summary: op.summary.length > 0, statuses: Object.keys(op.responses) }).toEqual({ id: op.operationId, summary: true, statuses: expect.arrayContaining(['500', '503']) });
  });

  it('names not_found on every path with a parameter and invalid_state where a move may not be possible now', () => {
    expect(operatorErrors(OPERATOR_OPERATIONS.moveWorkspace).get(409)).toEqual(['invalid_state']);
    expect(operatorErrors(OPERATOR_OPERATIONS.cancelMove).get(409)).toEqual(['invalid_state']);
    expect(operatorErrors(OPERATOR_OPERATIONS.getMove).get(404)).toEqual(['not_found']);
    expect(operatorErrors(OPERATOR_OPERATIONS.listNodes).get(404)).toBeUndefined();
  });
});

describe('the operator API validators', () => {
  const v = createOperatorValidators();

  it('checks a move request: `to` a server name, nothing else', () => {
    expect(v.moveWorkspace.body({ to: 'node-b' })).toBeNull();
    expect(v.moveWorkspace.body({})).toEqual([{ field: '/to', message: 'is required' }]);
    expect(v.moveWorkspace.body({ to: 'node-b', force: true })).toEqual([{ field: '/force', message: 'is not allowed' }]);
    expect(v.moveWorkspace.body({ to: 'Node B\n' })).toEqual([{ field: '/to', message: expect.stringMatching(/pattern/) }]);
    expect(v.moveWorkspace.body(['node-b'])).toEqual([{ field: '', message: 'must be object' }]);
  });

  it('reads the moves query: limit in decimal digits within 1..10000 (default 50), workspace an id, nothing else', () => {
    expect(v.listMoves.query({})).toEqual({ value: { limit: 50 } });
    expect(v.listMoves.query({ limit: '7', workspace: '01936f3e-8a2b-7c4d-9e0f-123456789abc' })).toEqual({ value: { limit: 7, workspace: '01936f3e-8a2b-7c4d-9e0f-123456789abc' } });
    for (const limit of ['0', '10001', '1e3', '0x10', '-1', '', ' 5']) expect(v.listMoves.query({ limit })).toEqual({ errors: [expect.objectContaining({ field: '/query/limit' })] });
    expect(v.listMoves.query({ limit: ['1', '2'] })).toEqual({ errors: [{ field: '/query/limit', message: 'must be given once' }] });
    expect(v.listMoves.query({ workspace: 'my-slug' })).toEqual({ errors: [{ field: '/query/workspace', message: 'must match format "uuid"' }] });
    expect(v.listMoves.query({ state: 'running' })).toEqual({ errors: [{ field: '/query/state', message: 'is not allowed' }] });
  });

  it('checks path parameters: server names, workspace ids or slugs, move ids', () => {
    expect(v.cordonNode.param('name', 'node-a')).toBeNull();
    expect(v.cordonNode.param('name', '../etc')).not.toBeNull();
    expect(v.moveWorkspace.param('idOrSlug', 'shop-1')).toBeNull();
    expect(v.moveWorkspace.param('idOrSlug', '01936f3e-8a2b-7c4d-9e0f-123456789abc')).toBeNull();
    expect(v.getMove.param('id', 'shop-1')).not.toBeNull();
  });

  it('checks answers against the document, error codes included', () => {
    // Every documented answer compiles in ajv's strict mode.
    for (const [id, spec] of Object.entries(OPERATOR_OPERATIONS)) {
      for (const status of [spec.success.status, ...operatorErrors(spec).keys()]) expect({ id, status, compiled: Array.isArray(v[id as keyof typeof v].response(status, 0)) }).toEqual({ id, status, compiled: true });
    }
    expect(v.getMove.response(404, { error: { code: 'not_found', message: 'No move has the id x' } })).toBeNull();
    expect(v.getMove.response(409, { error: { code: 'invalid_state', message: 'x' } })).toEqual([{ field: '', message: 'status 409 is not documented' }]);
    expect(v.cancelMove.response(409, { error: { code: 'not_found', message: 'x' } })).not.toBeNull();
  });
});
