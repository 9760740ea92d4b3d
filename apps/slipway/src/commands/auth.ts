// login, logout, whoami, link.
import { hostname } from 'node:os';
import path from 'node:path';
import { ApiError, createApiClient, unwrap } from '@slipway/api-client';
import type { Command } from 'commander';
import { configPath, Context, findLink, readConfig, removeConfig, VERSION, writeConfig, writeLink } from '../context';
import { CliError, colours, EXIT, fields, note, printJson, say } from '../output';
import { ask, readStdin } from '../prompt';
import { action, example } from '../program-kit';

export function authCommands(program: Command): void {
  example(
    program
      .command('login')
      .description('Sign in: email and password (a workspace token is created and stored), or an existing --token')
      .option('--url <url>', "the platform's URL (default: the last one, or SLIPWAY_URL)")
      .option('--email <email>', 'your email (asked when missing)')
      .option('--password-stdin', 'read the password from standard input')
      .option('--token <token>', 'store this workspace token instead of signing in')
      .option('--token-name <name>', 'the name of the token created', `slipway CLI on ${hostname()}`),
    'slipway login --url https://slipway.example.com',
  ).action(
    action({ context: false }, async (_ctx, opts: { url?: string; email?: string; passwordStdin?: boolean; token?: string; tokenName: string; workspace?: string; json?: boolean }) => {
      const previous = readConfig();
      const url = (opts.url ?? process.env.SLIPWAY_URL ?? previous.url ?? (await ask('Slipway URL: '))).replace(/\/+$/, '');
      if (!/^https?:\/\//.test(url)) throw new CliError(`${url} is not an http(s) URL`, EXIT.usage, 'invalid_url');
      const headers = { 'user-agent': `slipway-cli/${VERSION} node/${process.versions.node}` };
      if (opts.token) {
        const api = createApiClient({ baseUrl: url, token: opts.token, headers });
        const me = await unwrap(api.GET('/v1/auth/me'));
        const ws = (await unwrap(api.GET('/v1/workspaces'))).data;
        const workspace = ws.find((w) => w.id === opts.workspace || w.slug === opts.workspace) ?? ws[0];
        writeConfig({ url, token: opts.token, workspaceId: workspace?.id, email: me.user.email });
        if (opts.json) printJson({ url, user: me.user, workspace });
        else say(`Logged in to ${url} as ${me.user.email}${workspace ? ` (workspace ${workspace.slug})` : ''}; token stored in ${configPath()}`);
        return;
      }
      const email = opts.email ?? (await ask('Email: '));
      const password = opts.passwordStdin ? await readStdin() : await ask('Password: ', true);
      const anonymous = createApiClient({ baseUrl: url, headers });
      const login = await anonymous.POST('/v1/auth/login', { body: { email, password } });
      if (!login.response.ok) throw ApiError.from(login.response.status, login.error, login.response.statusText);
      const cookie = login.response.headers
        .getSetCookie()
        .map((c) => c.split(';')[0]!)
        .join('; ');
      // Changes made with the session cookie must carry the platform's origin (its CSRF rule).
      const session = createApiClient({ baseUrl: url, cookie, headers: { ...headers, origin: new URL(url).origin } });
      const ws = (await unwrap(session.GET('/v1/workspaces'))).data;
      const workspace = opts.workspace ? ws.find((w) => w.id === opts.workspace || w.slug === opts.workspace) : ws[0];
      if (!workspace) {
        await session.POST('/v1/auth/logout');
        throw new CliError(opts.workspace ? `You are not a member of a workspace ${opts.workspace}` : 'You are a member of no workspace yet: create one in the console', EXIT.notFound, 'not_found');
      }
      if (!opts.workspace && ws.length > 1) note(`Using workspace ${workspace.slug} (you have ${ws.length}; choose with --workspace SLUG)`);
      try {
        const created = await unwrap(session.POST('/v1/workspaces/{workspaceId}/tokens', { params: { path: { workspaceId: workspace.id } }, body: { name: opts.tokenName.slice(0, 64) } }));
        writeConfig({ url, token: created.token, workspaceId: workspace.id, email });
        if (opts.json) printJson({ url, workspace, token: { ...created, token: undefined } });
        else say(`Logged in to ${url} as ${email} (workspace ${workspace.slug}); token ${created.prefix}… stored in ${configPath()}`);
      } catch (e) {
        if (e instanceof ApiError && e.code === 'csrf_rejected') {
          throw new CliError(`${e.message}: log in with --url set to the platform's public URL, or create a token in the console and pass --token`, EXIT.notAllowed, e.code);
        }
        throw e;
      } finally {
        // The session was only needed to create the token.
        await session.POST('/v1/auth/logout').catch(() => undefined);
      }
    }),
  );

  example(program.command('logout').description('Forget the stored token (revoke it with slipway tokens revoke)'), 'slipway logout').action(
    action({ context: false }, async () => {
      say(removeConfig() ? `Removed ${configPath()}` : 'Not logged in');
    }),
  );

  example(program.command('whoami').description('The user, platform and workspace the CLI acts as'), 'slipway whoami --json').action(
    action({}, async (ctx: Context) => {
      ctx.requireToken();
      const me = await unwrap(ctx.api.GET('/v1/auth/me'));
      const workspaceId = await ctx.workspaceId();
      const workspace = await unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}', { params: { path: { workspaceId } } }));
      if (ctx.json) return printJson({ url: ctx.url, user: me.user, workspace });
      fields([
        ['user', `${me.user.name} <${me.user.email}>`],
        ['platform', ctx.url],
        ['workspace', `${workspace.name} (${workspace.slug})`],
        ['linked', findLink(ctx.cwd)?.file ?? null],
      ]);
    }),
  );

  example(
    program
      .command('link')
      .description('Remember the workspace and app for this folder in .slipway.json (later commands need no ids)')
      .argument('[app]', 'the app: id, name or slug (default: --app)')
      .option('--dir <dir>', 'the folder to link', '.'),
    'slipway link my-api',
  ).action(
    action({}, async (ctx: Context, opts: { dir: string }, appArg?: string) => {
      const app = await ctx.app(appArg);
      const file = writeLink(path.resolve(ctx.cwd, opts.dir), { workspace: app.workspaceId, app: app.id });
      if (ctx.json) return printJson({ file, workspace: app.workspaceId, app });
      say(`Linked ${colours.bold(app.name)} in ${file}`);
    }),
  );
}
