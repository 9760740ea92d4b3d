// slipway deploy: zip the folder, upload it with a progress bar, follow the build and rollout, print the URL.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { unwrap, type Schemas } from '@slipway/api-client';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { zipFolder } from '../archive';
import type { Context } from '../context';
import { followDeployment } from '../follow';
import { bytes, CliError, colours, EXIT, note, printJson, say, statusColour } from '../output';
import { action, example } from '../program-kit';
import { uploadFile } from '../upload';

interface DeployOptions {
  image?: string;
  follow: boolean;
  github?: boolean;
  commit?: string;
  includeEnv?: boolean;
  json?: boolean;
}

export function deployCommands(program: Command): void {
  example(
    program
      .command('deploy')
      .description('Deploy: upload the folder (honouring .gitignore and .slipwayignore), follow the build, print the URL when live')
      .argument('[dir]', 'the folder to upload (upload apps)', '.')
      .option('--image <ref>', 'image apps: deploy this image (default: the app’s image)')
      .option('--github', 'GitHub apps: deploy the head of the branch (or --commit)')
      .option('--commit <sha>', 'GitHub apps: the commit to deploy')
      .option('--include-env', 'upload .env* files too (left out by default)')
      .option('--no-follow', 'return once the deployment is queued'),
    'slipway deploy',
    'slipway deploy ./web --app web --no-follow',
    'slipway deploy --image registry.example.com/api:1.4.2',
  ).action(
    action({}, async (ctx: Context, opts: DeployOptions, dir: string) => {
      const { workspaceId, appId, app } = await ctx.appPath();
      let deployment: Schemas['Deployment'];
      if (opts.image || opts.github || opts.commit || app.source !== 'upload') {
        if (opts.image && app.source !== 'image') throw new CliError(`${app.name} is built from ${app.source === 'github' ? 'GitHub' : 'uploads'}: --image is for image apps`, EXIT.usage, 'source_mismatch');
        if ((opts.github || opts.commit) && app.source !== 'github') throw new CliError(`${app.name} is not a GitHub app: --github is for apps created from a repository`, EXIT.usage, 'source_mismatch');
        const body = app.source === 'image' ? (opts.image ? { image: opts.image } : {}) : opts.commit ? { commitSha: opts.commit } : {};
        deployment = await unwrap(ctx.api.POST('/v1/workspaces/{workspaceId}/apps/{appId}/deployments', { params: { path: { workspaceId, appId } }, body }));
      } else {
        deployment = await uploadFolder(ctx, workspaceId, appId, path.resolve(ctx.cwd, dir), opts);
      }
      if (!opts.follow) {
        if (ctx.json) return printJson(deployment);
        return say(`Deployment #${deployment.number} ${statusColour(deployment.status)} (${deployment.id}); follow it with slipway logs --build ${deployment.number}`);
      }
      if (!ctx.json) note(colours.dim(`Deployment #${deployment.number} queued; following its log (Ctrl-C stops following, not the deployment)`));
      const ended = await followDeployment(ctx, appId, deployment.id, !ctx.json);
      const current = await unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/apps/{appId}', { params: { path: { workspaceId, appId } } }));
      if (ctx.json) printJson(ended);
      if (ended.status !== 'live' && !(ended.status === 'superseded' && current.currentDeployment)) {
        throw new CliError(`Deployment #${ended.number} ${ended.status}: ${ended.failureReason ?? 'no reason given'}`, EXIT.failed, `deployment_${ended.status}`);
      }
      if (!ctx.json) say(`${colours.green('✔')} Deployment #${ended.number} is live${current.url ? ` at ${colours.bold(current.url)}` : ''}`);
    }),
  );
}

async function uploadFolder(ctx: Context, workspaceId: string, appId: string, dir: string, opts: DeployOptions): Promise<Schemas['Deployment']> {
  const token = ctx.requireToken();
  const archive = await zipFolder(dir, { includeEnv: opts.includeEnv });
  try {
    if (archive.files === 0) throw new CliError(`Nothing to upload in ${dir}: every file is ignored or the folder is empty`, EXIT.usage, 'empty_upload');
    for (const link of archive.skippedLinks) note(colours.yellow(`left out ${link}: symbolic links are not uploaded`));
    const tty = process.stderr.isTTY && !ctx.json;
    const bar = tty ? new SingleBar({ format: `Uploading ${archive.files} files [{bar}] {percentage}% | {sent} of {size}`, hideCursor: true, stream: process.stderr, barsize: 30 }) : null;
    bar?.start(archive.bytes, 0, { sent: bytes(0), size: bytes(archive.bytes) });
    if (!tty && !ctx.json) note(`Uploading ${archive.files} files (${bytes(archive.bytes)})`);
    const deployment = (await uploadFile(`${ctx.url}/v1/workspaces/${workspaceId}/apps/${appId}/deployments/upload`, {
      method: 'POST',
      token,
      file: archive.file,
      contentType: 'application/zip',
      onProgress: (sent) => bar?.update(sent, { sent: bytes(sent), size: bytes(archive.bytes) }),
    }).finally(() => bar?.stop())) as Schemas['Deployment'];
    return deployment;
  } finally {
    await rm(path.dirname(archive.file), { recursive: true, force: true });
  }
}
