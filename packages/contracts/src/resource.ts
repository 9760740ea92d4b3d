// The shape of an operation and of a resource module (src/resources/*.ts): a resource declares its tag, the
// schemas it names in `components.schemas` and its operations; api.ts assembles them into one table.

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * - `public`: no credential.
 * - `session`: the `svc_session` cookie only (a bearer token answers 401 `session_required`).
 * - `any`: the session cookie or `Authorization: Bearer <token>`.
 */
export type AuthMode = 'public' | 'session' | 'any';

export interface OperationSpec {
  readonly method: HttpMethod;
  readonly path: string;
  readonly tag: string;
  readonly summary: string;
  readonly description?: string;
  readonly auth: AuthMode;
  /** The workspace permission (packages/core permissions table) the authorization layer checks. */
  readonly permission?: string;
  readonly body?: object;
  /** Query parameters as one object schema (properties = parameters); validated with coercion, defaults filled in. */
  readonly query?: object;
  /**
   * A body that is not JSON (a file): only its Content-Type is checked (415 otherwise); the handler streams it from
   * `req` itself, with its own size limit.
   */
  readonly rawBody?: { readonly contentType: string; readonly description: string };
  readonly success: {
    readonly status: number;
    readonly description: string;
    readonly schema: object;
    readonly contentType?: string;
    readonly setsCookie?: boolean;
    /** The handler writes the response itself (a download streamed with its headers); it returns nothing. */
    readonly streamed?: boolean;
  };
  /** Errors particular to the operation; the generic ones (credentials, body, CSRF, 500) are added by document.ts. */
  readonly errors?: { readonly [status: number]: readonly string[] };
  /** Non-error responses other than the success one (e.g. /readyz's 503). */
  readonly otherResponses?: { readonly [status: number]: { readonly description: string; readonly schema: object } };
  /** Served by a router of its own rather than the operation table (health checks, the reference page). */
  readonly custom?: boolean;
}

/** A tag of the document: the reference page groups operations by it. */
export interface Tag {
  readonly name: string;
  readonly description: string;
}

export interface Resource {
  /** Every operation of the resource carries this tag's name. */
  readonly tag: Tag;
  /** Schemas that get a name in `components.schemas` (others are written inline where they are used). */
  readonly schemas: { readonly [name: string]: object };
  /** Keyed by operationId, unique across the API. */
  readonly operations: { readonly [operationId: string]: OperationSpec };
}
