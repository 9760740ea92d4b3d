import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { fieldErrors, type FieldError } from '../validation';
import { OPERATOR_OPERATIONS, operatorApiDocument, operatorErrors, operatorPathParameters, type OperatorOperationId, type OperatorOperationSpec } from './document';

export interface OperatorValidator {
  readonly operationId: OperatorOperationId;
  readonly spec: OperatorOperationSpec;
  readonly pathParameters: readonly string[];
  /** null when the path parameter is well-formed. */
  param(name: string, value: string): FieldError[] | null;
  /** null when the body is valid, otherwise each failing field. */
  body(data: unknown): FieldError[] | null;
  /** The query with its defaults filled in, or the failing parameters (`/query/<name>`). */
  query(raw: Record<string, unknown>): { value: Record<string, unknown> } | { errors: FieldError[] };
  /** null when `data` is what the document promises for `status`. */
  response(status: number, data: unknown): FieldError[] | null;
}

const DOCUMENT_ID = 'https://slipway.local/operator-api.json';
const ENVELOPE = ['openapi', 'info', 'paths', 'components'];
const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** A validator per operation, compiled with ajv (strict) from the served document itself, as the public API's are. */
export function createOperatorValidators(): Record<OperatorOperationId, OperatorValidator> {
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormats(ajv);
  for (const keyword of ENVELOPE) ajv.addKeyword({ keyword });
  ajv.addSchema(operatorApiDocument() as object, DOCUMENT_ID);
  const queryAjv = new Ajv2020({ allErrors: true, strict: true, useDefaults: true });
  addFormats(queryAjv);
  const compile = (pointer: string) => ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });

  const result = {} as Record<OperatorOperationId, OperatorValidator>;
  for (const [operationId, spec] of Object.entries(OPERATOR_OPERATIONS) as [OperatorOperationId, OperatorOperationSpec][]) {
    const base = `/paths/${escape(spec.path)}/${spec.method}`;
    const params = operatorPathParameters(spec.path);
    const paramValidators = new Map(params.map((name, i) => [name as string, compile(`${base}/parameters/${i}/schema`)]));
    const body = spec.body ? compile(`${base}/requestBody/content/application~1json/schema`) : undefined;
    const query = spec.query ? queryAjv.compile({ type: 'object', ...spec.query }) : undefined;
    const integers = Object.entries(spec.query?.properties ?? {}).filter(([, s]) => (s as { type?: string }).type === 'integer').map(([n]) => n);
    const statuses = new Set([spec.success.status, ...operatorErrors(spec).keys()]);
    const responses = new Map<number, ValidateFunction>();
    result[operationId] = {
      operationId,
      spec,
      pathParameters: params,
      param: (name, value) => (paramValidators.get(name)!(value) ? null : [{ field: '', message: 'is malformed' }]),
      body: (data) => (!body || body(data) ? null : fieldErrors(body.errors)),
      query(raw) {
        if (!query) return { value: {} };
        const value: Record<string, unknown> = {};
        const errors: FieldError[] = [];
        for (const [k, v] of Object.entries(raw)) {
          // A parameter given twice (?limit=1&limit=2) is refused rather than guessed at; numbers are decimal digits.
          if (typeof v !== 'string') errors.push({ field: `/query/${k}`, message: 'must be given once' });
          else if (integers.includes(k)) {
            if (/^(0|[1-9][0-9]{0,15})$/.test(v)) value[k] = Number(v);
            else errors.push({ field: `/query/${k}`, message: 'must be a whole number in decimal digits' });
          } else value[k] = v;
        }
        if (errors.length) return { errors };
        if (query(value)) return { value };
        return { errors: fieldErrors(query.errors).map((e) => ({ ...e, field: `/query${e.field}` })) };
      },
      response(status, data) {
        if (!statuses.has(status)) return [{ field: '', message: `status ${status} is not documented` }];
        let v = responses.get(status);
        if (!v) {
          v = compile(`${base}/responses/${status}/content/application~1json/schema`);
          responses.set(status, v);
        }
        return v(data) ? null : fieldErrors(v.errors);
      },
    };
  }
  return result;
}
