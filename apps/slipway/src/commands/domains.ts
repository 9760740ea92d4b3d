// slipway domains: custom domains of a web app, with the DNS records to create.
import { unwrap, type Schemas } from '@slipway/api-client';
import type { Command } from 'commander';
import type { Context } from '../context';
import { CliError, colours, EXIT, printJson, say, statusColour, table } from '../output';
import { action, example } from '../program-kit';

export function printRecords(d: Schemas['Domain']): void {
  say(`${colours.bold(d.hostname)}: ${statusColour(d.status)}, certificate ${d.certificate.status}${d.certificate.error ? ` (${d.certificate.error})` : ''}`);
  say('Create these DNS records:');
  const rows: string[][] = [];
  if (d.dns.cname) rows.push(['CNAME', d.hostname, d.dns.cname]);
  else {
    for (const a of d.dns.a) rows.push(['A', d.hostname, a]);
    for (const a of d.dns.aaaa) rows.push(['AAAA', d.hostname, a]);
  }
  rows.push(['TXT', d.dns.txtName, d.dns.txtValue]);
  table(['type', 'name', 'value'], rows);
  if (d.check?.error) say(colours.yellow(`Last check: ${d.check.error}`));
}

async function findDomain(ctx: Context, workspaceId: string, appId: string, hostname: string): Promise<Schemas['Domain']> {
  const list = await unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/apps/{appId}/domains', { params: { path: { workspaceId, appId } } }));
  const d = list.data.find((x) => x.hostname === hostname.toLowerCase() || x.hostnameUnicode === hostname || x.id === hostname);
  if (!d) throw new CliError(`No domain ${hostname} on this app`, EXIT.notFound, 'not_found');
  return d;
}

export function domainCommands(program: Command): void {
  const domains = program.command('domains').description('Custom domains of the app');
  example(domains, 'slipway domains add www.example.com');
  example(domains.command('add').description('Add a domain; prints the DNS records to create').argument('<hostname>'), 'slipway domains add www.example.com').action(
    action({}, async (ctx: Context, _o: unknown, hostname: string) => {
      const { workspaceId, appId } = await ctx.appPath();
      const d = await unwrap(ctx.api.POST('/v1/workspaces/{workspaceId}/apps/{appId}/domains', { params: { path: { workspaceId, appId } }, body: { hostname } }));
      if (ctx.json) return printJson(d);
      printRecords(d);
      say(colours.dim('Then: slipway domains verify ' + d.hostname));
    }),
  );
  example(domains.command('list').alias('ls').description('Domains and their state'), 'slipway domains list').action(
    action({}, async (ctx: Context) => {
      const { workspaceId, appId } = await ctx.appPath();
      const list = await unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/apps/{appId}/domains', { params: { path: { workspaceId, appId } } }));
      if (ctx.json) return printJson(list);
      table(['hostname', 'status', 'certificate', 'routed'], list.data.map((d) => [d.hostname, statusColour(d.status), d.certificate.status, d.routed ? 'yes' : 'no']), 'no custom domains');
    }),
  );
  example(domains.command('verify').description('Check the DNS records now').argument('<hostname>'), 'slipway domains verify www.example.com').action(
    action({}, async (ctx: Context, _o: unknown, hostname: string) => {
      const { workspaceId, appId } = await ctx.appPath();
      const found = await findDomain(ctx, workspaceId, appId, hostname);
      const d = await unwrap(ctx.api.POST('/v1/workspaces/{workspaceId}/apps/{appId}/domains/{domainId}/verify', { params: { path: { workspaceId, appId, domainId: found.id } } }));
      if (ctx.json) return printJson(d);
      printRecords(d);
    }),
  );
  example(domains.command('rm').description('Remove a domain').argument('<hostname>'), 'slipway domains rm www.example.com').action(
    action({}, async (ctx: Context, _o: unknown, hostname: string) => {
      const { workspaceId, appId } = await ctx.appPath();
      const found = await findDomain(ctx, workspaceId, appId, hostname);
      const r = await unwrap(ctx.api.DELETE('/v1/workspaces/{workspaceId}/apps/{appId}/domains/{domainId}', { params: { path: { workspaceId, appId, domainId: found.id } } }));
      if (ctx.json) return printJson(r);
      say(`Removed ${found.hostname}`);
    }),
  );
}
