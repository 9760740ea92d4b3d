import { open, rm } from 'node:fs/promises';
import { BuildError } from './extract';

const SHA = /^[0-9a-f]{40}$/;
const REPO = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;
const MAX_REDIRECTS = 5;

export interface TarballRequest {
  /** GitHub's REST API: https://api.github.com or https://<host>/api/v3. */
  apiUrl: string;
  repoFullName: string;
  commitSha: string;
  /** The installation token: sent in the Authorization header of the API request only, never stored or logged. */
  token: string;
  /** Where the .tar.gz goes (created 0600, exclusive); removed when the download fails. */
  dest: string;
  maxBytes: number;
  signal?: AbortSignal;
}

/**
 * Downloads the tarball of one commit: `GET {api}/repos/{owner}/{repo}/tarball/{sha}` with the token, then the
 * redirect GitHub answers (302 to a short-lived codeload URL) followed by hand WITHOUT the Authorization header, the
 * body streamed to `dest` under `maxBytes`. Failures are BuildErrors a user can act on; none carries the token.
 */
export async function downloadTarball(r: TarballRequest): Promise<{ bytes: number }> {
  if (!SHA.test(r.commitSha)) throw new BuildError('The commit to build must be a full 40-character sha');
  if (!REPO.test(r.repoFullName)) throw new BuildError(`"${r.repoFullName}" is not a repository name (owner/name)`);
  const api = new URL(r.apiUrl);
  if (api.protocol !== 'https:' && api.protocol !== 'http:') throw new BuildError('The GitHub API URL must be http(s)');
  const [owner, repo] = r.repoFullName.split('/') as [string, string];
  let url = new URL(`${r.apiUrl.replace(/\/$/, '')}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/tarball/${r.commitSha}`);
  const base = { 'user-agent': 'slipway-agent', accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' };
  let res = await get(url, { ...base, authorization: `token ${r.token}` }, r.signal);
  for (let hops = 0; isRedirect(res.status); hops++) {
    const location = res.headers.get('location');
    await res.body?.cancel().catch(() => undefined);
    if (!location || hops >= MAX_REDIRECTS) throw new BuildError('GitHub redirected the download of the commit too many times, or nowhere');
    url = new URL(location, url);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new BuildError('GitHub redirected the download to a URL that is not http(s)');
    // The token stays with GitHub's API: the archive host gets a signed URL of its own, never the token.
    res = await get(url, { 'user-agent': 'slipway-agent' }, r.signal);
  }
  if (res.status === 404) {
    await res.body?.cancel().catch(() => undefined);
    throw new BuildError(`GitHub has no commit ${r.commitSha} in ${r.repoFullName}, or the GitHub App cannot read that repository any more`);
  }
  if (res.status === 401 || res.status === 403) {
    await res.body?.cancel().catch(() => undefined);
    throw new BuildError(`GitHub refused to send ${r.repoFullName} at ${r.commitSha.slice(0, 7)} (${res.status}): the GitHub App's access may have been removed`);
  }
  if (!res.ok || !res.body) {
    await res.body?.cancel().catch(() => undefined);
    throw new BuildError(`GitHub answered ${res.status} to the download of ${r.repoFullName} at ${r.commitSha.slice(0, 7)}; deploy again later`);
  }
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > r.maxBytes) {
    await res.body.cancel().catch(() => undefined);
    throw tooLarge(r.maxBytes);
  }
  const file = await open(r.dest, 'wx', 0o600);
  let bytes = 0;
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      if (bytes > r.maxBytes) throw tooLarge(r.maxBytes);
      await file.write(chunk);
    }
    await file.close();
    return { bytes };
  } catch (e) {
    await file.close().catch(() => undefined);
    await rm(r.dest, { force: true });
    if (e instanceof BuildError) throw e;
    if (r.signal?.aborted) throw new BuildError('The build was cancelled');
    throw new BuildError(`The download of ${r.repoFullName} from GitHub broke off (${(e as Error).message}); deploy again`);
  }
}

const isRedirect = (status: number) => status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
const tooLarge = (max: number) => new BuildError(`The repository archive is larger than ${max} bytes, this server's limit (SLIPWAY_UPLOAD_ZIP_MAX_BYTES)`);

async function get(url: URL, headers: Record<string, string>, signal?: AbortSignal): Promise<Response> {
  try {
    return await fetch(url, { headers, redirect: 'manual', signal });
  } catch (e) {
    if (signal?.aborted) throw new BuildError('The build was cancelled');
    // The message names the host only: never a header.
    throw new BuildError(`GitHub (${url.host}) could not be reached to download the commit (${(e as Error).cause instanceof Error ? ((e as Error).cause as Error).message : (e as Error).message})`);
  }
}
