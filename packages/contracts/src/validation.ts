import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { bodyPointer, openApiDocument, pathParameters, responsePointer } from './document';
import { OPERATIONS, type OperationId } from './api';
import type { OperationSpec } from './resource';

/** One failing field: `field` is a JSON pointer into the body (`''` for the body itself). */
export interface FieldError {
  field: string;
  message: string;
}

export interface OperationValidator {
  readonly operationId: OperationId;
  readonly spec: OperationSpec;
  readonly pathParameters: readonly string[];
  /** null when the body is valid, otherwise each failing field. */
  body(data: unknown): FieldError[] | null;
  /**
   * The query string as the operation's query schema describes it (numbers coerced, defaults filled in), or the
   * failing parameters (`field` is `/query/<name>`). Operations without a query schema get `{}`.
   */
  query(raw: Record<string, unknown>): { value: Record<string, unknown> } | { errors: FieldError[] };
  /** null when the path parameter is well-formed (a UUID). */
  param(value: string): FieldError[] | null;
  /** null when `data` is what the document promises for `status`; a description of the mismatch otherwise. */
  response(status: number, data: unknown): FieldError[] | null;
}

// Keywords of the OpenAPI envelope: declared so ajv's strict mode accepts the document as a whole
// while still rejecting any unknown keyword inside a schema.
const ENVELOPE = ['openapi', 'info', 'jsonSchemaDialect', 'servers', 'paths', 'webhooks', 'components', 'security', 'tags', 'externalDocs'];
const DOCUMENT_ID = 'https://slipway.local/openapi.json';

/**
 * Compiles a validator for every operation straight from the served OpenAPI document: ajv resolves
 * `$ref`s inside it, so what is validated is exactly what is published.
 */
export function createValidators(): Record<OperationId, OperationValidator> {
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, verbose: true });
  addFormats(ajv);
  for (const keyword of ENVELOPE) ajv.addKeyword({ keyword });
  ajv.addSchema(openApiDocument() as object, DOCUMENT_ID);
  const compile = (pointer: string) => ajv.compile({ $ref: `${DOCUMENT_ID}${pointer}` });
  const uuid = compile('#/components/schemas/Uuid');
  // Query strings are text: a second instance coerces "25" to 25 and fills in defaults.
  const queryAjv = new Ajv2020({ allErrors: true, strict: true, coerceTypes: true, useDefaults: true });
  addFormats(queryAjv);

  const result = {} as Record<OperationId, OperationValidator>;
  for (const [operationId, spec] of Object.entries(OPERATIONS) as [OperationId, OperationSpec][]) {
    const body = spec.body ? compile(bodyPointer(spec)) : undefined;
    const query = spec.query ? queryAjv.compile(spec.query) : undefined;
    const responses = new Map<number, ValidateFunction>();
    const responseValidator = (status: number) => {
      let v = responses.get(status);
      if (!v) {
        v = compile(responsePointer(spec, status));
        responses.set(status, v);
      }
      return v;
    };
    const documented = documentedStatuses(operationId);
    result[operationId] = {
      operationId,
      spec,
      pathParameters: pathParameters(spec.path),
      body: (data) => (!body ? null : body(data) ? null : fieldErrors(body.errors)),
      query(raw) {
        if (!query) return { value: {} };
        // A parameter given twice (?limit=1&limit=2) is refused rather than guessed at.
        const value: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(raw)) value[k] = Array.isArray(v) || (v !== null && typeof v === 'object') ? [v] : v;
        if (query(value)) return { value };
        return { errors: fieldErrors(query.errors).map((e) => ({ ...e, field: `/query${e.field}` })) };
      },
      param: (value) => (uuid(value) ? null : [{ field: '', message: 'must be a UUID' }]),
      response(status, data) {
        if (!documented.has(status)) return [{ field: '', message: `status ${status} is not documented` }];
        if (spec.success.contentType && status === spec.success.status) return null;
        const v = responseValidator(status);
        return v(data) ? null : fieldErrors(v.errors);
      },
    };
  }
  return result;
}

function documentedStatuses(operationId: OperationId): Set<number> {
  const spec = OPERATIONS[operationId] as OperationSpec;
  const path = (openApiDocument().paths as Record<string, Record<string, { responses: Record<string, unknown> }>>)[spec.path]!;
  return new Set(Object.keys(path[spec.method]!.responses).map(Number));
}

/** ajv's errors as `{ field, message }`, one per failing field and message. */
export function fieldErrors(errors: ErrorObject[] | null | undefined): FieldError[] {
  const out: FieldError[] = [];
  const seen = new Set<string>();
  for (const e of errors ?? []) {
    let field = e.instancePath;
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required') {
      field = `${e.instancePath}/${(e.params as { missingProperty: string }).missingProperty}`;
      message = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      field = `${e.instancePath}/${(e.params as { additionalProperty: string }).additionalProperty}`;
      message = 'is not allowed';
    } else if (e.keyword === 'pattern' && e.parentSchema && typeof (e.parentSchema as { description?: string }).description === 'string') {
      message = `must be ${(e.parentSchema as { description: string }).description}`;
    }
    const key = `${field}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ field, message });
  }
  return out;
}
