// slipway members, slipway tokens.
import { unwrap } from '@slipway/api-client';
import { type Command, Option } from 'commander';
import type { Context } from '../context';
import { ago, CliError, EXIT, printJson, say, table } from '../output';
import { action, example } from '../program-kit';

const ROLES = ['owner', 'admin', 'developer', 'viewer'];

export function workspaceCommands(program: Command): void {
  const members = program.command('members').description('Members of the workspace and their roles');
  example(members, 'slipway members list', 'slipway members add ada@example.com --role developer');
  example(members.command('list').alias('ls').description('Members and roles'), 'slipway members list').action(
    action({}, async (ctx: Context) => {
      const workspaceId = await ctx.workspaceId();
      const list = await unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/members', { params: { path: { workspaceId } } }));
      if (ctx.json) return printJson(list);
      table(['email', 'name', 'role', 'since'], list.data.map((m) => [m.email, m.name, m.role, ago(m.createdAt)]));
    }),
  );
  example(members.command('add').description('Add an existing user by email').argument('<email>').addOption(new Option('--role <role>').choices(ROLES).default('developer')), 'slipway members add ada@example.com --role admin').action(
    action({}, async (ctx: Context, o: { role: 'owner' | 'admin' | 'developer' | 'viewer' }, email: string) => {
      const workspaceId = await ctx.workspaceId();
      const m = await unwrap(ctx.api.POST('/v1/workspaces/{workspaceId}/members', { params: { path: { workspaceId } }, body: { email, role: o.role } }));
      if (ctx.json) return printJson(m);
      say(`${m.email} is ${m.role}`);
    }),
  );
  const byEmail = async (ctx: Context, workspaceId: string, email: string) => {
    const list = await unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/members', { params: { path: { workspaceId } } }));
    const m = list.data.find((x) => x.email.toLowerCase() === email.toLowerCase() || x.userId === email);
    if (!m) throw new CliError(`${email} is not a member of this workspace`, EXIT.notFound, 'not_found');
    return m;
  };
  example(members.command('role').description("Change a member's role").argument('<email>').addOption(new Option('--role <role>').choices(ROLES).makeOptionMandatory()), 'slipway members role ada@example.com --role viewer').action(
    action({}, async (ctx: Context, o: { role: 'owner' | 'admin' | 'developer' | 'viewer' }, email: string) => {
      const workspaceId = await ctx.workspaceId();
      const m = await byEmail(ctx, workspaceId, email);
      const r = await unwrap(ctx.api.PATCH('/v1/workspaces/{workspaceId}/members/{userId}', { params: { path: { workspaceId, userId: m.userId } }, body: { role: o.role } }));
      if (ctx.json) return printJson(r);
      say(`${m.email} is ${o.role}`);
    }),
  );
  example(members.command('rm').description('Remove a member (their tokens are revoked)').argument('<email>'), 'slipway members rm ada@example.com').action(
    action({}, async (ctx: Context, _o: unknown, email: string) => {
      const workspaceId = await ctx.workspaceId();
      const m = await byEmail(ctx, workspaceId, email);
      const r = await unwrap(ctx.api.DELETE('/v1/workspaces/{workspaceId}/members/{userId}', { params: { path: { workspaceId, userId: m.userId } } }));
      if (ctx.json) return printJson(r);
      say(`Removed ${m.email}`);
    }),
  );

  const tokens = program.command('tokens').description('API tokens of the workspace (new ones: slipway login, or the console)');
  example(tokens, 'slipway tokens list');
  example(tokens.command('list').alias('ls').description('Tokens, without their values'), 'slipway tokens list').action(
    action({}, async (ctx: Context) => {
      const workspaceId = await ctx.workspaceId();
      const list = await unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/tokens', { params: { path: { workspaceId } } }));
      if (ctx.json) return printJson(list);
      const mine = ctx.token?.slice(0, 12);
      table(['id', 'name', 'prefix', 'by', 'last used', 'expires'], list.data.map((t) => [t.id, t.name + (mine?.startsWith(t.prefix) ? ' (this CLI)' : ''), t.prefix, t.createdBy.name, ago(t.lastUsedAt), t.expiresAt ?? 'never']));
    }),
  );
  example(tokens.command('revoke').description('Revoke a token (it answers 401 from then on)').argument('<id>'), 'slipway tokens revoke 1f0c…').action(
    action({}, async (ctx: Context, _o: unknown, tokenId: string) => {
      const workspaceId = await ctx.workspaceId();
      const r = await unwrap(ctx.api.DELETE('/v1/workspaces/{workspaceId}/tokens/{tokenId}', { params: { path: { workspaceId, tokenId } } }));
      if (ctx.json) return printJson(r);
      say(`Revoked ${tokenId}`);
    }),
  );
}
