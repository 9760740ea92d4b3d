// slipway files: the app's project folder on the server.
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ApiError, unwrap } from '@slipway/api-client';
import type { Command } from 'commander';
import type { Context } from '../context';
import { ago, bytes, CliError, colours, EXIT, printJson, say, table } from '../output';
import { action, example } from '../program-kit';
import { uploadFile } from '../upload';

const clean = (p: string) => p.replace(/^\/+|\/+$/g, '');

export function fileCommands(program: Command): void {
  const files = program.command('files').description("The app's project folder on the server");
  example(files, 'slipway files ls data');

  example(files.command('ls').description('List a folder (default: the project folder)').argument('[path]', 'a folder', ''), 'slipway files ls uploads').action(
    action({}, async (ctx: Context, _o: unknown, p: string) => {
      const { workspaceId, appId } = await ctx.appPath();
      const listing = await unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/apps/{appId}/files', { params: { path: { workspaceId, appId }, query: { path: clean(p) } } }));
      if (ctx.json) return printJson(listing);
      table(['name', 'size', 'modified'], listing.entries.map((e) => [e.type === 'directory' ? colours.blue(`${e.name}/`) : e.name, e.type === 'file' ? bytes(e.size) : '', ago(e.modifiedAt)]), 'empty folder');
      if (listing.truncated) say(colours.dim('(only the first 1,000 entries)'));
    }),
  );

  example(files.command('get').description('Download a file (to stdout with -)').argument('<path>').argument('[local]', 'where to write it (default: its name here; - for stdout)'), 'slipway files get data/app.db ./app.db').action(
    action({}, async (ctx: Context, _o: unknown, remote: string, local?: string) => {
      const { workspaceId, appId } = await ctx.appPath();
      const res = await ctx.api.GET('/v1/workspaces/{workspaceId}/apps/{appId}/files/content', { params: { path: { workspaceId, appId }, query: { path: clean(remote) } }, parseAs: 'stream' });
      if (!res.response.ok || !res.data) throw ApiError.from(res.response.status, res.error, res.response.statusText);
      const body = Readable.fromWeb(res.data as import('node:stream/web').ReadableStream);
      if (local === '-') return pipeline(body, process.stdout);
      const target = path.resolve(ctx.cwd, local ?? path.basename(remote));
      await pipeline(body, createWriteStream(target));
      if (!ctx.json) say(`Wrote ${target}`);
    }),
  );

  example(files.command('put').description('Upload a file (parent folders are created)').argument('<local>').argument('<path>', 'where in the project folder'), 'slipway files put ./seed.json data/seed.json').action(
    action({}, async (ctx: Context, _o: unknown, local: string, remote: string) => {
      const { workspaceId, appId } = await ctx.appPath();
      const url = `${ctx.url}/v1/workspaces/${workspaceId}/apps/${appId}/files/content?path=${encodeURIComponent(clean(remote))}`;
      const entry = await uploadFile(url, { method: 'PUT', token: ctx.requireToken(), file: path.resolve(ctx.cwd, local), contentType: 'application/octet-stream' });
      if (ctx.json) return printJson(entry);
      say(`Wrote ${clean(remote)}`);
    }),
  );

  example(files.command('rm').description('Delete a file or folder').argument('<path>').option('-r, --recursive', 'a folder with content'), 'slipway files rm -r tmp').action(
    action({}, async (ctx: Context, o: { recursive?: boolean }, remote: string) => {
      if (!clean(remote)) throw new CliError('Name a file or folder inside the project folder', EXIT.usage, 'invalid_path');
      const { workspaceId, appId } = await ctx.appPath();
      const result = await unwrap(ctx.api.DELETE('/v1/workspaces/{workspaceId}/apps/{appId}/files', { params: { path: { workspaceId, appId }, query: { path: clean(remote), ...(o.recursive ? { recursive: 'true' as const } : {}) } } }));
      if (ctx.json) return printJson(result);
      say(`Deleted ${clean(remote)}`);
    }),
  );

  example(files.command('mv').description('Rename or move (the destination must not exist)').argument('<from>').argument('<to>'), 'slipway files mv old.txt archive/old.txt').action(
    action({}, async (ctx: Context, _o: unknown, from: string, to: string) => {
      const { workspaceId, appId } = await ctx.appPath();
      const result = await unwrap(ctx.api.POST('/v1/workspaces/{workspaceId}/apps/{appId}/files/rename', { params: { path: { workspaceId, appId } }, body: { from: clean(from), to: clean(to) } }));
      if (ctx.json) return printJson(result);
      say(`Moved ${clean(from)} to ${clean(to)}`);
    }),
  );
}
