// The API assembled from its resources: one list, in the order the reference page shows them. document.ts renders
// it as the OpenAPI 3.1 document served at GET /v1/openapi.json; the API mounts its routes from OPERATIONS
// (apps/api/src/http/operations.ts). A new resource is a module in resources/ and one entry in RESOURCES.
import { COMMON_SCHEMAS } from './common';
import type { OperationSpec, Resource, Tag } from './resource';
import { APPS } from './resources/apps';
import { AUTH } from './resources/auth';
import { BACKUP_DESTINATIONS } from './resources/backup-destinations';
import { BACKUPS } from './resources/backups';
import { DATABASES } from './resources/databases';
import { DEPLOYMENTS } from './resources/deployments';
import { DOMAINS } from './resources/domains';
import { FILES } from './resources/files';
import { GITHUB } from './resources/github';
import { MEMBERS } from './resources/members';
import { METRICS } from './resources/metrics';
import { META } from './resources/meta';
import { NODES } from './resources/nodes';
import { PLANS } from './resources/plans';
import { TOKENS } from './resources/tokens';
import { WORKSPACES } from './resources/workspaces';

export const RESOURCES = [AUTH, WORKSPACES, MEMBERS, TOKENS, PLANS, APPS, DEPLOYMENTS, FILES, METRICS, NODES, META, DATABASES, BACKUPS, BACKUP_DESTINATIONS, DOMAINS, GITHUB] as const;

type Merged<R extends readonly Resource[]> = R extends readonly [infer H extends Resource, ...infer T extends readonly Resource[]]
  ? H['operations'] & Merged<T>
  : unknown;
type Flat<T> = { readonly [K in keyof T]: T[K] };

/** Every operation of the API, keyed by operationId. */
export const OPERATIONS = mergeOnce<OperationSpec>(RESOURCES.map((r) => r.operations), 'operationId') as Flat<Merged<typeof RESOURCES>>;
export type OperationId = keyof typeof OPERATIONS;
export const OPERATION_IDS = Object.keys(OPERATIONS) as OperationId[];

/** Every schema that gets a name in `components.schemas`. */
export const COMPONENT_SCHEMAS: Readonly<Record<string, object>> = mergeOnce<object>([COMMON_SCHEMAS, ...RESOURCES.map((r) => r.schemas)], 'schema');

/** The document's tags, in the order the reference page shows them. */
export const TAGS: readonly Tag[] = RESOURCES.map((r) => r.tag);

/** One object from several; a name declared twice (two resources claiming one operationId) stops the process. */
function mergeOnce<T>(parts: readonly { readonly [name: string]: T }[], what: string): Record<string, T> {
  const out: Record<string, T> = {};
  for (const part of parts) {
    for (const [name, value] of Object.entries(part)) {
      if (name in out) throw new Error(`The ${what} ${name} is declared twice`);
      out[name] = value;
    }
  }
  return out;
}
