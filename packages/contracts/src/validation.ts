import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { bodyPointer, INTEGER_PATH_PARAMETERS, openApiDocument, pathParameters, responsePointer } from './document';
import { OPERATIONS, type OperationId } from './api';
import type { OperationSpec } from './resource';
import { TEXT_KEYWORD, textProblem, type TextKind } from './text';

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
  /** null when the path parameter is well-formed (a UUID; an integer for INTEGER_PATH_PARAMETERS when named). */
  param(value: string, name?: string): FieldError[] | null;
  /** null when `data` is what the document promises for `status`; a description of the mismatch otherwise. */
  response(status: number, data: unknown): FieldError[] | null;
}

// Keywords of the OpenAPI envelope: declared so ajv's strict mode accepts the document as a whole
// while still rejecting any unknown keyword inside a schema.
const ENVELOPE = ['openapi', 'info', 'jsonSchemaDialect', 'servers', 'paths', 'webhooks', 'components', 'security', 'tags', 'externalDocs'];
const DOCUMENT_ID = 'https://slipway.local/openapi.json';

/** `make()` on the first call, its value after (never null: ajv instances and compiled functions); compiled when first asked for. */
function once<T extends object>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}

/**
 * A validator for every operation straight from the served OpenAPI document: ajv resolves `$ref`s inside it, so what
 * is validated is exactly what is published. Each schema is compiled when a request first needs it (86 operations
 * compiled at start-up were 3.5 MB of an idle API's heap, issue 34); validation.spec.ts compiles every one of them, so
 * a schema ajv refuses still fails the build, not a request.
 */
export function createValidators(): Record<OperationId, OperationValidator> {
  // Requests and responses get an instance each: the text rule is enforced on what clients send, while the
  // server's own strings (log lines, file names) may hold any character.
  const requestAjv = once(() => documentAjv(true));
  const ajv = once(() => documentAjv(false));
  const compile = (pointer: string) => ajv().compile({ $ref: `${DOCUMENT_ID}${pointer}` });
  const uuid = once(() => compile('#/components/schemas/Uuid'));
  // Query strings are text: numbers are parsed strictly (numericQuery) before validation; defaults are filled in.
  const queryAjv = once(() => {
    const a = new Ajv2020({ allErrors: true, strict: true, useDefaults: true });
    addFormats(a);
    addTextKeyword(a, true);
    return a;
  });

  const result = {} as Record<OperationId, OperationValidator>;
  for (const [operationId, spec] of Object.entries(OPERATIONS) as [OperationId, OperationSpec][]) {
    const body = spec.body ? once(() => requestAjv().compile({ $ref: `${DOCUMENT_ID}${bodyPointer(spec)}` })) : undefined;
    const querySchema = spec.query ? documentQuery(spec) : undefined;
    const query = querySchema ? once(() => queryAjv().compile(querySchema)) : undefined;
    const numeric = querySchema ? numericQuery(operationId, querySchema) : new Map<string, NumericBounds>();
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
      body(data) {
        if (!body) return null;
        const v = body();
        return v(data) ? null : fieldErrors(v.errors);
      },
      query(raw) {
        if (!query) return { value: {} };
        // A parameter given twice (?limit=1&limit=2) is refused rather than guessed at.
        const value: Record<string, unknown> = {};
        const errors: FieldError[] = [];
        for (const [k, v] of Object.entries(raw)) {
          if (Array.isArray(v) || (v !== null && typeof v === 'object')) value[k] = [v];
          else if (numeric.has(k) && typeof v === 'string') {
            const n = parseDecimal(v);
            if (n === null) errors.push({ field: `/query/${k}`, message: numericMessage(numeric.get(k)!) });
            else value[k] = n;
          } else value[k] = v;
        }
        const v = query();
        if (v(value) && !errors.length) return { value };
        const others = v.errors ? fieldErrors(v.errors).map((e) => ({ ...e, field: `/query${e.field}` })) : [];
        return { errors: [...errors, ...others.filter((e) => !errors.some((n) => n.field === e.field))] };
      },
      param: (value, name) =>
        name !== undefined && INTEGER_PATH_PARAMETERS.has(name)
          ? /^[1-9][0-9]{0,14}$/.test(value)
            ? null
            : [{ field: '', message: 'must be a positive integer' }]
          : uuid()(value)
            ? null
            : [{ field: '', message: 'must be a UUID' }],
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

function documentAjv(enforceText: boolean): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, verbose: true });
  addFormats(ajv);
  for (const keyword of ENVELOPE) ajv.addKeyword({ keyword });
  addTextKeyword(ajv, enforceText);
  ajv.addSchema(openApiDocument() as object, DOCUMENT_ID);
  return ajv;
}

/** `x-slipway-text` (text.ts): enforced on requests, a mere annotation elsewhere. */
function addTextKeyword(ajv: Ajv2020, enforce: boolean): void {
  if (!enforce) {
    ajv.addKeyword({ keyword: TEXT_KEYWORD, schemaType: 'string' });
    return;
  }
  ajv.addKeyword({
    keyword: TEXT_KEYWORD,
    type: 'string',
    schemaType: 'string',
    errors: true,
    metaSchema: { enum: ['line', 'multiline', 'path'] },
    validate: function check(kind: TextKind, data: string) {
      const message = textProblem(kind, data);
      if (message === null) return true;
      (check as unknown as { errors: Partial<ErrorObject>[] }).errors = [{ keyword: TEXT_KEYWORD, message, params: { kind } }];
      return false;
    },
  });
}

/**
 * The query string of an operation as one object schema, rebuilt from the document's parameters (so the text
 * marks apply), with the additional-properties rule of the operation's own query schema.
 */
function documentQuery(spec: OperationSpec): object {
  const item = (openApiDocument().paths as Record<string, Record<string, { parameters?: { name: string; in: string; required: boolean; schema: object }[] }>>)[spec.path]!;
  const params = (item[spec.method]!.parameters ?? []).filter((p) => p.in === 'query');
  return {
    type: 'object',
    additionalProperties: (spec.query as { additionalProperties?: boolean }).additionalProperties ?? true,
    required: params.filter((p) => p.required).map((p) => p.name),
    properties: Object.fromEntries(params.map((p) => [p.name, p.schema])),
  };
}

interface NumericBounds {
  minimum: number;
  maximum: number;
}

/**
 * The numeric parameters of a query schema and their bounds. Every one must be an integer with a minimum and a
 * maximum no larger than a safe integer: an unbounded number in a query string is how `?limit=1e309` became a 500.
 */
function numericQuery(operationId: string, schema: object): Map<string, NumericBounds> {
  const out = new Map<string, NumericBounds>();
  for (const [name, p] of Object.entries((schema as { properties: Record<string, { type?: unknown; minimum?: unknown; maximum?: unknown }> }).properties)) {
    const types = Array.isArray(p.type) ? p.type : [p.type];
    if (!types.includes('integer') && !types.includes('number')) continue;
    if (types.includes('number')) throw new Error(`Query parameter ${name} of ${operationId} must be an integer, not a number`);
    const { minimum, maximum } = p;
    if (!Number.isSafeInteger(minimum) || !Number.isSafeInteger(maximum)) {
      throw new Error(`Query parameter ${name} of ${operationId} needs an integer minimum and maximum`);
    }
    out.set(name, { minimum: minimum as number, maximum: maximum as number });
  }
  return out;
}

/** A decimal integer as written in a query string (`-` allowed, no exponent, sign `+`, hex, spaces or fraction). */
function parseDecimal(text: string): number | null {
  if (!/^-?(?:0|[1-9][0-9]{0,15})$/.test(text)) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
}

const numericMessage = (b: NumericBounds) => `must be a whole number from ${b.minimum} to ${b.maximum}, in decimal digits`;

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
