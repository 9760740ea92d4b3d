// Where the CLI's credentials and ids come from: the config file (~/.config/slipway/config.json, mode 0600, under
// XDG_CONFIG_HOME when set), SLIPWAY_URL / SLIPWAY_TOKEN over it, the folder's .slipway.json (from `slipway link`)
// and --workspace / --app over everything.
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { createApiClient, unwrap, type ApiClient, type Schemas } from '@slipway/api-client';
import { CliError, EXIT } from './output';

export const VERSION = '0.1.0';
export const LINK_FILE = '.slipway.json';

export interface StoredConfig {
  url?: string;
  token?: string;
  workspaceId?: string;
  email?: string;
}

export interface LinkFile {
  workspace: string;
  app?: string;
}

export interface GlobalOptions {
  workspace?: string;
  app?: string;
  json?: boolean;
}

export function configPath(): string {
  const base = process.env.XDG_CONFIG_HOME || path.join(homedir(), '.config');
  return path.join(base, 'slipway', 'config.json');
}

export function readConfig(): StoredConfig {
  const file = configPath();
  if (!existsSync(file)) return {};
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as StoredConfig;
  } catch {
    throw new CliError(`${file} is not valid JSON: fix it or remove it and run slipway login again`);
  }
}

/** Written with mode 0600 (it holds a token), its folder 0700. */
export function writeConfig(config: StoredConfig): void {
  const file = configPath();
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

export function removeConfig(): boolean {
  const file = configPath();
  if (!existsSync(file)) return false;
  rmSync(file);
  return true;
}

/** The nearest .slipway.json from `dir` up. */
export function findLink(dir = process.cwd()): { file: string; link: LinkFile } | null {
  let current = path.resolve(dir);
  for (;;) {
    const file = path.join(current, LINK_FILE);
    if (existsSync(file)) {
      try {
        return { file, link: JSON.parse(readFileSync(file, 'utf8')) as LinkFile };
      } catch {
        throw new CliError(`${file} is not valid JSON: run slipway link again`);
      }
    }
    const parent = path.dirname(current);
    if (parent === current) return null;
    current = parent;
  }
}

export function writeLink(dir: string, link: LinkFile): string {
  const file = path.join(dir, LINK_FILE);
  writeFileSync(file, `${JSON.stringify(link, null, 2)}\n`);
  return file;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT']);
const TRANSIENT = new Set(['ECONNRESET', 'EPIPE', 'ECONNREFUSED', 'ETIMEDOUT', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/**
 * fetch that tries an idempotent request twice more when the connection broke (a kept-alive socket the server closed,
 * the API restarting): a follow loop of several minutes must not die of one reset. Other requests fail at once.
 */
export async function retryingFetch(input: Request): Promise<Response> {
  if (!IDEMPOTENT.has(input.method)) return fetch(input);
  for (let attempt = 0; ; attempt++) {
    const request = input.clone();
    try {
      return await fetch(request);
    } catch (error) {
      const code = (error as { cause?: { code?: string } }).cause?.code;
      if (attempt >= 2 || !code || !TRANSIENT.has(code)) throw error;
      await new Promise((r) => setTimeout(r, 250 * (attempt + 1)));
    }
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string) => UUID.test(s);

export class Context {
  readonly url: string;
  readonly token: string | undefined;
  readonly api: ApiClient;
  private workspaceCache?: string;

  constructor(
    readonly options: GlobalOptions,
    readonly config: StoredConfig = readConfig(),
    readonly cwd: string = process.cwd(),
  ) {
    const url = process.env.SLIPWAY_URL || config.url;
    if (!url) throw new CliError('Not logged in: run slipway login --url URL (or set SLIPWAY_URL and SLIPWAY_TOKEN)', EXIT.notAllowed, 'not_logged_in');
    this.url = url.replace(/\/+$/, '');
    this.token = process.env.SLIPWAY_TOKEN || config.token;
    this.api = createApiClient({ baseUrl: this.url, token: this.token, headers: { 'user-agent': `slipway-cli/${VERSION} node/${process.versions.node}` }, fetch: retryingFetch });
  }

  get json(): boolean {
    return Boolean(this.options.json);
  }

  requireToken(): string {
    if (!this.token) throw new CliError('Not logged in: run slipway login (or set SLIPWAY_TOKEN)', EXIT.notAllowed, 'not_logged_in');
    return this.token;
  }

  /** --workspace (id or slug), the folder's link, the login's workspace, or the token's one workspace. */
  async workspaceId(): Promise<string> {
    if (this.workspaceCache) return this.workspaceCache;
    this.requireToken();
    const wanted = this.options.workspace ?? findLink(this.cwd)?.link.workspace ?? (process.env.SLIPWAY_TOKEN ? undefined : this.config.workspaceId);
    // An id is used as is (a wrong one answers 404 at the first call): one round trip less for every command.
    if (wanted && isUuid(wanted)) return (this.workspaceCache = wanted);
    const list = await unwrap(this.api.GET('/v1/workspaces'));
    let found: Schemas['Workspace'] | undefined;
    if (wanted) {
      found = list.data.find((w) => w.id === wanted || w.slug === wanted);
      if (!found) throw new CliError(`No workspace ${wanted} for these credentials (a token reaches only its own workspace)`, EXIT.notFound, 'not_found');
    } else {
      found = list.data[0];
      if (!found) throw new CliError('These credentials reach no workspace', EXIT.notFound, 'not_found');
    }
    this.workspaceCache = found.id;
    return found.id;
  }

  /** The app named by --app (id, name or slug) or the folder's link. */
  async app(explicit?: string): Promise<Schemas['App']> {
    const workspaceId = await this.workspaceId();
    const wanted = explicit ?? this.options.app ?? findLink(this.cwd)?.link.app;
    if (!wanted) throw new CliError('Which app? Pass --app NAME, or run slipway link in this folder', EXIT.usage, 'app_required');
    if (isUuid(wanted)) {
      return unwrap(this.api.GET('/v1/workspaces/{workspaceId}/apps/{appId}', { params: { path: { workspaceId, appId: wanted } } }));
    }
    const apps = await unwrap(this.api.GET('/v1/workspaces/{workspaceId}/apps', { params: { path: { workspaceId } } }));
    const app = apps.data.find((a) => a.slug === wanted || a.name === wanted);
    if (!app) throw new CliError(`No app ${wanted} in this workspace`, EXIT.notFound, 'not_found');
    return app;
  }

  async appPath(explicit?: string): Promise<{ workspaceId: string; appId: string; app: Schemas['App'] }> {
    const app = await this.app(explicit);
    return { workspaceId: app.workspaceId, appId: app.id, app };
  }
}
