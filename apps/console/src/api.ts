// The console's one door to the API: the typed client of @slipway/api-client on this origin (the session cookie goes
// with every call; the browser sends Origin on writes), plus the few calls openapi-fetch cannot make (uploads with
// progress), typed from the same generated paths.
import { ApiError, createApiClient, unwrap, type paths, type Schemas } from '@slipway/api-client';

export { ApiError, unwrap };
export type { Schemas };
export type App = Schemas['App'];
export type Deployment = Schemas['Deployment'];
export type Workspace = Schemas['Workspace'];
export type Role = Schemas['Role'];

export const api = createApiClient({ baseUrl: window.location.origin });

type UploadPath = '/v1/workspaces/{workspaceId}/apps/{appId}/deployments/upload' | '/v1/workspaces/{workspaceId}/apps/{appId}/files/content';
type UploadAnswer<P extends UploadPath> = P extends '/v1/workspaces/{workspaceId}/apps/{appId}/deployments/upload'
  ? paths[P]['post']['responses'][201]['content']['application/json']
  : unknown;

/** A raw-body upload with progress (fetch reports none): the .zip of a deployment, a file of the project folder. */
export function upload<P extends UploadPath>(
  path: P,
  params: { workspaceId: string; appId: string; query?: Record<string, string> },
  body: Blob,
  onProgress: (fraction: number) => void,
): Promise<UploadAnswer<P>> {
  const url = new URL(path.replace('{workspaceId}', params.workspaceId).replace('{appId}', params.appId), window.location.origin);
  for (const [k, v] of Object.entries(params.query ?? {})) url.searchParams.set(k, v);
  const isZip = path.endsWith('/deployments/upload');
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(isZip ? 'POST' : 'PUT', url);
    xhr.setRequestHeader('content-type', isZip ? 'application/zip' : 'application/octet-stream');
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onerror = () => reject(new ApiError(0, 'network_error', 'The upload could not reach the server'));
    xhr.onload = () => {
      let parsed: unknown = xhr.responseText;
      try {
        parsed = JSON.parse(xhr.responseText);
      } catch {
        /* not JSON: the status line says it */
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(parsed as UploadAnswer<P>);
      else reject(ApiError.from(xhr.status, parsed, xhr.statusText));
    };
    xhr.send(body);
  });
}

/** Words for any failure: the API's own sentence, or what the browser knows. */
export function messageOf(e: unknown): string {
  if (e instanceof ApiError) return e.message;
  if (e instanceof Error) return e.message;
  return String(e);
}

/** Field errors of a 400, keyed by field name (`name`, `variables/0/key`…). */
export function fieldErrors(e: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!(e instanceof ApiError)) return out;
  for (const d of e.details) {
    const field = typeof d.field === 'string' ? d.field : typeof d.path === 'string' ? d.path : undefined;
    if (field && typeof d.message === 'string') out[field.replace(/^\/?(body[./])?/, '').replace(/^\//, '')] = d.message;
  }
  return out;
}
