// Apps and what a user does to one: create, list, show, delete, status, start/stop/restart, rollback, deployments,
// logs, env, scale, metrics, open.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { unwrap, type Schemas } from '@slipway/api-client';
import { type Command, Option } from 'commander';
import { parse as parseDotenv } from 'dotenv';
import { isUuid, writeLink, type Context } from '../context';
import { FINISHED, followDeployment, followRuntime, formatLine } from '../follow';
import { ago, CliError, colours, EXIT, fields, note, printJson, say, statusColour, table } from '../output';
import { parseCpu, parseMegabytes, parseSince, sparkline } from '../parse';
import { action, example } from '../program-kit';



const cpu = (millis: number) => `${millis / 1000} vCPU`;

function appRows(apps: Schemas['App'][]) {
  return apps.map((a) => [a.name, a.kind, a.source, statusColour(a.status), a.currentDeployment ? `#${a.currentDeployment.number}` : null, a.url]);
}

export function showApp(app: Schemas['App']): void {
  fields([
    ['name', `${app.name} (${app.slug})`],
    ['id', app.id],
    ['kind', `${app.kind}, from ${app.source}${app.image ? ` ${app.image}` : ''}`],
    ['status', `${statusColour(app.status)}${app.desiredState === 'stopped' && app.status !== 'stopped' ? ' (stopping)' : ''}`],
    ['url', app.url],
    ['deployment', app.currentDeployment ? `#${app.currentDeployment.number} ${app.currentDeployment.status}, ${ago(app.currentDeployment.finishedAt ?? app.currentDeployment.createdAt)}` : null],
    ['running since', app.runningSince],
    ['size', `${cpu(app.cpuMillis)}, ${app.memoryMb} MB memory, ${app.disk.limitMb} MB disk (${app.disk.usedMb ?? '?'} MB used)`],
  ]);
  if (app.statusDetail) {
    say(colours.red(`\n${app.statusDetail.message} (exit ${app.statusDetail.exitCode}, ${app.statusDetail.restarts} restarts)`));
    if (app.statusDetail.tail) say(colours.dim(app.statusDetail.tail));
  }
}

/** A deployment by id, or by its number (#3 or 3). */
async function findDeployment(ctx: Context, workspaceId: string, appId: string, ref: string): Promise<Schemas['Deployment']> {
  if (isUuid(ref)) return unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/apps/{appId}/deployments/{deploymentId}', { params: { path: { workspaceId, appId, deploymentId: ref } } }));
  const number = Number(ref.replace(/^#/, ''));
  if (!Number.isInteger(number) || number < 1) throw new CliError(`${ref} is neither a deployment id nor a number`, EXIT.usage, 'invalid_deployment');
  let cursor: string | undefined;
  for (;;) {
    const page = await unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/apps/{appId}/deployments', { params: { path: { workspaceId, appId }, query: { limit: 100, ...(cursor ? { cursor } : {}) } } }));
    const found = page.data.find((d) => d.number === number);
    if (found) return found;
    if (!page.nextCursor || page.data.every((d) => d.number < number)) throw new CliError(`No deployment #${number} of this app`, EXIT.notFound, 'not_found');
    cursor = page.nextCursor;
  }
}

async function finish(ctx: Context, workspaceId: string, appId: string, deployment: Schemas['Deployment'], follow: boolean): Promise<void> {
  if (!follow) {
    if (ctx.json) return printJson(deployment);
    return say(`Deployment #${deployment.number} ${statusColour(deployment.status)} (${deployment.id})`);
  }
  const ended = await followDeployment(ctx, appId, deployment.id, !ctx.json);
  if (ctx.json) printJson(ended);
  if (ended.status !== 'live') throw new CliError(`Deployment #${ended.number} ${ended.status}: ${ended.failureReason ?? 'no reason given'}`, EXIT.failed, `deployment_${ended.status}`);
  const app = await unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/apps/{appId}', { params: { path: { workspaceId, appId } } }));
  if (!ctx.json) say(`${colours.green('✔')} Deployment #${ended.number} is live${app.url ? ` at ${colours.bold(app.url)}` : ''}`);
}

async function putEnv(ctx: Context, workspaceId: string, appId: string, change: (vars: Map<string, { value: string; secret: boolean }>) => void) {
  const current = await unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/apps/{appId}/env', { params: { path: { workspaceId, appId } } }));
  // Secret values come back as null; "" keeps them as they are.
  const vars = new Map(current.data.map((v) => [v.key, { value: v.value ?? '', secret: v.secret }]));
  change(vars);
  const variables = [...vars.entries()].map(([key, v]) => ({ key, value: v.value, secret: v.secret }));
  return unwrap(ctx.api.PUT('/v1/workspaces/{workspaceId}/apps/{appId}/env', { params: { path: { workspaceId, appId } }, body: { variables } }));
}

function printEnv(ctx: Context, list: Schemas['EnvVariableList']) {
  if (ctx.json) return printJson(list);
  table(['key', 'value', 'updated'], list.data.map((v) => [v.key, v.secret ? colours.dim('•••••• (secret)') : v.value, ago(v.updatedAt)]), 'no variables');
}


export function appCommands(program: Command): void {
  const apps = program.command('apps').description('Create, list, show and delete apps');
  example(apps, 'slipway apps list');

  example(
    apps
      .command('create')
      .description('Create an app (web apps get a URL); nothing runs until its first deployment')
      .argument('<name>')
      .addOption(new Option('--kind <kind>', 'web or worker').choices(['web', 'worker']).default('web'))
      .addOption(new Option('--source <source>', 'where its code comes from').choices(['upload', 'image', 'github']).default('upload'))
      .option('--image <ref>', 'image apps: the image')
      .option('--port <port>', 'web apps: the port it listens on (default 8080)')
      .option('--memory <size>', 'reserved memory: 256, 512M, 1G', '256')
      .option('--cpu <amount>', 'reserved vCPU: 0.25, 1, 500m (default: the plan minimum)')
      .option('--disk <size>', 'size of its project folder (default: the plan minimum)')
      .option('--github-installation <id>', 'GitHub apps: the installation id')
      .option('--repo <owner/name>', 'GitHub apps: the repository')
      .option('--branch <branch>', 'GitHub apps: the branch', 'main')
      .option('--root-dir <dir>', 'GitHub apps: the folder of the repository to build')
      .option('--link', 'link this folder to the new app'),
    'slipway apps create web --memory 512M --link',
    'slipway apps create api --source image --image ghcr.io/acme/api:1 --port 3000',
    'slipway apps create shop --source github --github-installation 4242 --repo acme/shop --branch main',
  ).action(
    action({}, async (ctx: Context, o: Record<string, string | boolean | undefined>, name: string) => {
      const workspaceId = await ctx.workspaceId();
      const body: Schemas['CreateAppRequest'] = {
        name,
        kind: o.kind as 'web' | 'worker',
        source: o.source as 'upload' | 'image' | 'github',
        memoryMb: parseMegabytes(String(o.memory)),
        ...(o.cpu ? { cpuMillis: parseCpu(String(o.cpu)) } : {}),
        ...(o.disk ? { diskMb: parseMegabytes(String(o.disk)) } : {}),
        ...(o.image ? { image: String(o.image) } : {}),
        ...(o.port ? { port: Number(o.port) } : {}),
        ...(o.source === 'github' ? { github: { installationId: Number(o.githubInstallation), repoFullName: String(o.repo), branch: String(o.branch), ...(o.rootDir ? { rootDir: String(o.rootDir) } : {}) } } : {}),
      };
      const app = await unwrap(ctx.api.POST('/v1/workspaces/{workspaceId}/apps', { params: { path: { workspaceId } }, body }));
      if (o.link) writeLink(ctx.cwd, { workspace: workspaceId, app: app.id });
      if (ctx.json) return printJson(app);
      say(`Created ${colours.bold(app.name)} (${app.id})${app.url ? ` at ${app.url}` : ''}${o.link ? '; this folder is linked to it' : ''}`);
    }),
  );

  example(apps.command('list').alias('ls').description('Apps of the workspace'), 'slipway apps list --json').action(
    action({}, async (ctx: Context) => {
      const workspaceId = await ctx.workspaceId();
      const list = await unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/apps', { params: { path: { workspaceId } } }));
      if (ctx.json) return printJson(list);
      table(['name', 'kind', 'source', 'status', 'live', 'url'], appRows(list.data), 'no apps yet: slipway apps create NAME');
    }),
  );

  example(apps.command('show').description('An app (default: the linked one)').argument('[app]'), 'slipway apps show web').action(
    action({}, async (ctx: Context, _o: unknown, appArg?: string) => {
      const app = await ctx.app(appArg);
      if (ctx.json) return printJson(app);
      showApp(app);
    }),
  );

  example(apps.command('delete').alias('rm').description('Delete an app, its containers, images and project folder').argument('<app>').option('--yes', 'do not ask'), 'slipway apps delete old-api --yes').action(
    action({}, async (ctx: Context, o: { yes?: boolean }, appArg: string) => {
      const { workspaceId, appId, app } = await ctx.appPath(appArg);
      if (!o.yes) throw new CliError(`Deleting ${app.name} removes its project folder for good: pass --yes`, EXIT.usage, 'confirmation_required');
      const result = await unwrap(ctx.api.DELETE('/v1/workspaces/{workspaceId}/apps/{appId}', { params: { path: { workspaceId, appId } } }));
      if (ctx.json) return printJson(result);
      say(`Deleted ${app.name}`);
    }),
  );

  example(program.command('status').description('The linked app: status, URL, live deployment, size').argument('[app]'), 'slipway status').action(
    action({}, async (ctx: Context, _o: unknown, appArg?: string) => {
      const app = await ctx.app(appArg);
      if (ctx.json) return printJson(app);
      showApp(app);
    }),
  );

  for (const [verb, what] of [
    ['start', "Bring the current deployment's container up again"],
    ['stop', 'Take the route offline and stop the container (reservation and files stay)'],
    ['restart', "Restart the current deployment's container"],
  ] as const) {
    example(program.command(verb).description(what).argument('[app]').option('--no-wait', 'return before the server did it'), `slipway ${verb}`).action(
      action({}, async (ctx: Context, o: { wait: boolean }, appArg?: string) => {
        const { workspaceId, appId } = await ctx.appPath(appArg);
        const path = { workspaceId, appId };
        const before = await unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/apps/{appId}', { params: { path } }));
        let app =
          verb === 'start'
            ? await unwrap(ctx.api.POST('/v1/workspaces/{workspaceId}/apps/{appId}/start', { params: { path } }))
            : verb === 'stop'
              ? await unwrap(ctx.api.POST('/v1/workspaces/{workspaceId}/apps/{appId}/stop', { params: { path } }))
              : await unwrap(ctx.api.POST('/v1/workspaces/{workspaceId}/apps/{appId}/restart', { params: { path } }));
        if (o.wait) {
          const want = verb === 'stop' ? 'stopped' : 'running';
          const deadline = Date.now() + 120_000;
          const since = before.runningSince;
          // Done once the status is reached (for a restart: a new runningSince).
          while (!(app.status === want && (verb !== 'restart' || app.runningSince !== since)) && !['failed', 'crashed'].includes(app.status) && Date.now() < deadline) {
            await new Promise((r) => setTimeout(r, 1000));
            app = await unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/apps/{appId}', { params: { path } }));
          }
          if (app.status !== want) throw new CliError(`${app.name} is ${app.status}${app.statusDetail ? `: ${app.statusDetail.message}` : ''}`, EXIT.failed, 'app_not_' + want);
        }
        if (ctx.json) return printJson(app);
        say(`${app.name}: ${statusColour(app.status)}`);
      }),
    );
  }

  example(
    program
      .command('rollback')
      .description('Deploy an earlier release again, without a build (default: the one before the live one)')
      .argument('[deployment]', 'its number or id')
      .option('--no-follow', 'return once it is queued'),
    'slipway rollback',
    'slipway rollback 12',
  ).action(
    action({}, async (ctx: Context, o: { follow: boolean }, ref?: string) => {
      const { workspaceId, appId, app } = await ctx.appPath();
      let target: Schemas['Deployment'] | undefined;
      if (ref) target = await findDeployment(ctx, workspaceId, appId, ref);
      else {
        const page = await unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/apps/{appId}/deployments', { params: { path: { workspaceId, appId }, query: { limit: 100 } } }));
        const live = app.currentDeployment?.number ?? Infinity;
        target = page.data.find((d) => d.number < live && d.imageAvailable && ['superseded', 'live'].includes(d.status));
        if (!target) throw new CliError('No earlier release to roll back to (one whose image is still on the server)', EXIT.wrongState, 'image_unavailable');
      }
      const deployment = await unwrap(ctx.api.POST('/v1/workspaces/{workspaceId}/apps/{appId}/deployments/{deploymentId}/rollback', { params: { path: { workspaceId, appId, deploymentId: target.id } } }));
      if (!ctx.json) note(colours.dim(`Rolling back to #${target.number} as #${deployment.number}`));
      await finish(ctx, workspaceId, appId, deployment, o.follow);
    }),
  );

  example(
    program
      .command('redeploy')
      .description('A new release of the live image with the current variables and size, without a build')
      .argument('[app]')
      .option('--no-follow', 'return once it is queued'),
    'slipway env set LOG_LEVEL=debug && slipway redeploy',
  ).action(
    action({}, async (ctx: Context, o: { follow: boolean }, appArg?: string) => {
      const { workspaceId, appId, app } = await ctx.appPath(appArg);
      if (!app.currentDeployment) throw new CliError(`${app.name} has no live release to redeploy: slipway deploy`, EXIT.wrongState, 'app_not_deployed');
      const deployment = await unwrap(ctx.api.POST('/v1/workspaces/{workspaceId}/apps/{appId}/deployments/{deploymentId}/rollback', { params: { path: { workspaceId, appId, deploymentId: app.currentDeployment.id } } }));
      if (!ctx.json) note(colours.dim(`Redeploying #${app.currentDeployment.number} as #${deployment.number}`));
      await finish(ctx, workspaceId, appId, deployment, o.follow);
    }),
  );

  example(program.command('deployments').description('Deployment history, newest first').option('--limit <n>', 'how many', '20'), 'slipway deployments --limit 5').action(
    action({}, async (ctx: Context, o: { limit: string }) => {
      const { workspaceId, appId, app } = await ctx.appPath();
      const page = await unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/apps/{appId}/deployments', { params: { path: { workspaceId, appId }, query: { limit: Math.min(100, Number(o.limit) || 20) } } }));
      if (ctx.json) return printJson(page);
      table(
        ['#', 'status', 'source', 'created', 'by', 'reason'],
        page.data.map((d) => [`${d.number}${d.id === app.currentDeployment?.id ? '*' : ''}`, statusColour(d.status), d.source + (d.commit?.sha ? ` ${d.commit.sha.slice(0, 7)}` : ''), ago(d.createdAt), d.triggeredBy?.name, d.failureReason]),
        'no deployments yet: slipway deploy',
      );
    }),
  );

  example(
    program
      .command('logs')
      .description("The app's runtime output (or a deployment's build and deploy log with --build)")
      .option('-f, --follow', 'keep printing lines as they are written')
      .option('--since <when>', 'only lines since: 10m, 2h, 1d or a date')
      .option('--build <deployment>', 'the build and deploy log of this deployment (number or id)'),
    'slipway logs -f',
    'slipway logs --since 1h',
    'slipway logs --build 7',
  ).action(
    action({}, async (ctx: Context, o: { follow?: boolean; since?: string; build?: string }) => {
      const { workspaceId, appId } = await ctx.appPath();
      if (o.build) {
        const d = await findDeployment(ctx, workspaceId, appId, o.build);
        if (o.follow && !FINISHED.has(d.status)) {
          const ended = await followDeployment(ctx, appId, d.id);
          return say(colours.dim(`deployment #${ended.number} ${ended.status}${ended.failureReason ? `: ${ended.failureReason}` : ''}`));
        }
        let after = 0;
        for (;;) {
          const chunk = await unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/apps/{appId}/deployments/{deploymentId}/logs', { params: { path: { workspaceId, appId, deploymentId: d.id }, query: { after, limit: 1000 } } }));
          for (const line of chunk.data) say(ctx.json ? JSON.stringify(line) : formatLine(line));
          after = chunk.nextAfter;
          if (chunk.done || chunk.data.length === 0) return;
        }
      }
      await followRuntime(ctx, workspaceId, appId, { follow: Boolean(o.follow), since: o.since ? parseSince(o.since) : undefined, json: ctx.json });
    }),
  );

  const env = program.command('env').description('Environment variables of the app (applied by the next restart or deployment: slipway restart)');
  example(env, 'slipway env set DATABASE_URL=postgres://… --secret');
  example(env.command('list').alias('ls').description('Variables; secret values are not shown'), 'slipway env list').action(
    action({}, async (ctx: Context) => {
      const { workspaceId, appId } = await ctx.appPath();
      printEnv(ctx, await unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/apps/{appId}/env', { params: { path: { workspaceId, appId } } })));
    }),
  );
  example(env.command('set').description('Set variables').argument('<pairs...>', 'KEY=VALUE').option('--secret', 'store them as secrets (never shown again)'), 'slipway env set NODE_ENV=production PORT=8080').action(
    action({}, async (ctx: Context, o: { secret?: boolean }, pairs: string[]) => {
      const parsed = pairs.map((p) => {
        const i = p.indexOf('=');
        if (i < 1) throw new CliError(`${p} is not KEY=VALUE`, EXIT.usage, 'invalid_variable');
        return [p.slice(0, i), p.slice(i + 1)] as const;
      });
      const { workspaceId, appId } = await ctx.appPath();
      const list = await putEnv(ctx, workspaceId, appId, (vars) => {
        for (const [key, value] of parsed) vars.set(key, { value, secret: Boolean(o.secret) });
      });
      if (!ctx.json) note(colours.dim('Applies from the next restart or deployment (slipway restart)'));
      printEnv(ctx, list);
    }),
  );
  example(env.command('unset').alias('rm').description('Remove variables').argument('<keys...>'), 'slipway env unset DEBUG').action(
    action({}, async (ctx: Context, _o: unknown, keys: string[]) => {
      const { workspaceId, appId } = await ctx.appPath();
      const list = await putEnv(ctx, workspaceId, appId, (vars) => {
        for (const key of keys) if (!vars.delete(key)) note(colours.yellow(`${key} was not set`));
      });
      if (!ctx.json) note(colours.dim('Applies from the next restart or deployment (slipway restart)'));
      printEnv(ctx, list);
    }),
  );
  example(env.command('import').description('Set every variable of a .env file').argument('<file>').option('--secret', 'store them as secrets'), 'slipway env import .env.production --secret').action(
    action({}, async (ctx: Context, o: { secret?: boolean }, file: string) => {
      const values = parseDotenv(readFileSync(path.resolve(ctx.cwd, file)));
      const { workspaceId, appId } = await ctx.appPath();
      const list = await putEnv(ctx, workspaceId, appId, (vars) => {
        for (const [key, value] of Object.entries(values)) vars.set(key, { value, secret: Boolean(o.secret) });
      });
      if (!ctx.json) note(colours.dim(`Imported ${Object.keys(values).length} variables; they apply from the next restart or deployment (slipway restart)`));
      printEnv(ctx, list);
    }),
  );

  example(
    program.command('scale').description('Resize the app (reserved at once, applied at the next deployment)').option('--cpu <amount>', 'vCPU: 0.5, 2, 500m').option('--memory <size>', 'memory: 512, 512M, 1G').option('--disk <size>', 'project folder (only grows): 1G'),
    'slipway scale --cpu 1 --memory 1G',
  ).action(
    action({}, async (ctx: Context, o: { cpu?: string; memory?: string; disk?: string }) => {
      if (!o.cpu && !o.memory && !o.disk) throw new CliError('Give --cpu, --memory or --disk', EXIT.usage, 'nothing_to_change');
      const { workspaceId, appId } = await ctx.appPath();
      const size = { ...(o.cpu ? { cpuMillis: parseCpu(o.cpu) } : {}), ...(o.memory ? { memoryMb: parseMegabytes(o.memory) } : {}), ...(o.disk ? { diskMb: parseMegabytes(o.disk) } : {}) };
      const app = await unwrap(ctx.api.PATCH('/v1/workspaces/{workspaceId}/apps/{appId}', { params: { path: { workspaceId, appId } }, body: { size } }));
      if (ctx.json) return printJson(app);
      say(`${app.name}: ${cpu(app.cpuMillis)}, ${app.memoryMb} MB memory, ${app.disk.limitMb} MB disk (applied at the next deployment)`);
    }),
  );

  example(program.command('metrics').description('CPU, memory and network over a range, as small charts').addOption(new Option('--range <range>', 'the window ending now').choices(['1h', '24h', '7d', '30d']).default('1h')), 'slipway metrics --range 24h').action(
    action({}, async (ctx: Context, o: { range: '1h' | '24h' | '7d' | '30d' }) => {
      const { workspaceId, appId, app } = await ctx.appPath();
      const m = await unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/apps/{appId}/metrics', { params: { path: { workspaceId, appId }, query: { range: o.range } } }));
      if (ctx.json) return printJson(m);
      const row = (label: string, series: { value: number | null }[], unit: (n: number) => string) => {
        const values = series.map((p) => p.value);
        const known = values.filter((v): v is number => v !== null);
        const last = known.length ? unit(known[known.length - 1]!) : 'no data';
        const peak = known.length ? unit(Math.max(...known)) : '-';
        say(`${label.padEnd(8)} ${colours.cyan(sparkline(values))}  now ${last}, peak ${peak}`);
      };
      say(colours.dim(`${app.name}, last ${m.range} (${m.from} → ${m.to}, one point per ${m.stepSeconds / 60} min)`));
      row('cpu', m.series.cpuMillis, (n) => `${(n / 1000).toFixed(2)} of ${cpu(app.cpuMillis)}`);
      row('memory', m.series.memoryMb, (n) => `${Math.round(n)} of ${app.memoryMb} MB`);
      row('net in', m.series.networkRxBytes, (n) => `${Math.round(n / 1024)} KB`);
      row('net out', m.series.networkTxBytes, (n) => `${Math.round(n / 1024)} KB`);
      row('disk', m.series.folderMb, (n) => `${Math.round(n)} of ${app.disk.limitMb} MB`);
    }),
  );

  example(program.command('open').description("Open the app's URL in a browser (prints it too)").argument('[app]'), 'slipway open').action(
    action({}, async (ctx: Context, _o: unknown, appArg?: string) => {
      const app = await ctx.app(appArg);
      if (!app.url) throw new CliError(`${app.name} is a worker: it has no URL`, EXIT.wrongState, 'app_not_web');
      say(app.url);
      const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
      const child = spawn(opener, [app.url], { stdio: 'ignore', detached: true });
      child.on('error', () => undefined);
      child.unref();
    }),
  );
}

