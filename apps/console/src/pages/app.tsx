import { lazy, useEffect, useState } from 'react';
import { Link, Route, Switch, useLocation, useParams } from 'wouter';
import { api, messageOf, unwrap, upload, type App, type Deployment } from '../api';
import { useAction, useLoad, useVisible } from '../hooks';
import { LogView } from '../log-view';
import { ConfirmButton, ErrorText, Field, Loading, Status, Tabs, useWorkspace, when } from '../ui';
import { ZipDrop } from './zip-drop';

const Metrics = lazy(() => import('./metrics').then((m) => ({ default: m.Metrics })));
const Files = lazy(() => import('./files').then((m) => ({ default: m.Files })));
const Domains = lazy(() => import('./domains').then((m) => ({ default: m.Domains })));

const RUNNING_DEPLOYMENT = new Set(['queued', 'building', 'deploying']);

export function AppPage() {
  const { workspace, base } = useWorkspace();
  const { appId } = useParams<{ appId: string }>();
  const [location] = useLocation();
  const workspaceId = workspace.id;
  const app = useLoad(() => unwrap(api.GET('/v1/workspaces/{workspaceId}/apps/{appId}', { params: { path: { workspaceId, appId } } })), [workspaceId, appId], 3000);
  const here = `${base}/apps/${appId}`;
  useEffect(() => {
    if (app.data) document.title = `${app.data.name} · Slipway`;
  }, [app.data]);
  if (app.error && !app.data) return <ErrorText error={app.error} />;
  if (!app.data) return <Loading what="the app" />;
  const a = app.data;
  const tab = (path: string, label: string) => ({ href: `${here}${path}`, label, active: path === '' ? location === here : location.startsWith(`${here}${path}`) });
  return (
    <section aria-labelledby="app-title">
      <div className="row spread">
        <h1 id="app-title">{a.name}</h1>
        <Status value={a.status} />
      </div>
      <p>
        {a.url ? (
          <a href={a.url} target="_blank" rel="noreferrer">
            {a.url}
          </a>
        ) : (
          'No public URL'
        )}
        {a.currentDeployment ? ` · deployment #${a.currentDeployment.number}` : ''}
      </p>
      {a.statusDetail && (
        <p className="error">
          {a.statusDetail.message} (exit code {a.statusDetail.exitCode}, {a.statusDetail.restarts} restarts)
        </p>
      )}
      <Tabs
        items={[
          tab('', 'Overview'),
          tab('/deployments', 'Deployments'),
          tab('/env', 'Variables'),
          tab('/logs', 'Logs'),
          tab('/metrics', 'Metrics'),
          tab('/files', 'Files'),
          tab('/domains', 'Domains'),
        ]}
      />
      <Switch>
        <Route path="/w/:ws/apps/:appId">
          <Overview app={a} reload={app.reload} />
        </Route>
        <Route path="/w/:ws/apps/:appId/deployments">
          <Deployments app={a} reload={app.reload} />
        </Route>
        <Route path="/w/:ws/apps/:appId/deployments/:deploymentId">
          <DeploymentPage app={a} />
        </Route>
        <Route path="/w/:ws/apps/:appId/env">
          <Env app={a} />
        </Route>
        <Route path="/w/:ws/apps/:appId/logs">
          <RuntimeLogs app={a} />
        </Route>
        <Route path="/w/:ws/apps/:appId/metrics">
          <Metrics app={a} />
        </Route>
        <Route path="/w/:ws/apps/:appId/files">
          <Files app={a} />
        </Route>
        <Route path="/w/:ws/apps/:appId/domains">
          <Domains app={a} />
        </Route>
      </Switch>
    </section>
  );
}

function Overview({ app, reload }: { app: App; reload(): void }) {
  const { workspace, canWrite, base } = useWorkspace();
  const [, navigate] = useLocation();
  const params = { path: { workspaceId: workspace.id, appId: app.id } };
  const act = useAction();
  const [cpu, setCpu] = useState(String(app.cpuMillis / 1000));
  const [memory, setMemory] = useState(String(app.memoryMb));
  const [disk, setDisk] = useState(String(app.disk.limitMb));
  const [image, setImage] = useState(app.image ?? '');
  const [port, setPort] = useState(app.port ? String(app.port) : '');
  const [buildCommand, setBuildCommand] = useState(app.buildCommand ?? '');
  const [startCommand, setStartCommand] = useState(app.startCommand ?? '');
  const [rootDirectory, setRootDirectory] = useState(app.rootDirectory ?? '');
  const save = useAction();
  const run = (what: 'start' | 'stop' | 'restart') => act.run(() => unwrap(api.POST(`/v1/workspaces/{workspaceId}/apps/{appId}/${what}`, { params }))).then(reload);
  return (
    <div>
      <dl className="facts">
        <dt>Status</dt>
        <dd>
          <Status value={app.status} /> (wanted: {app.desiredState})
        </dd>
        <dt>Source</dt>
        <dd>{app.source === 'image' ? app.image : app.source === 'github' ? `${app.github?.repoFullName} (${app.github?.branch})` : '.zip upload'}</dd>
        <dt>Size</dt>
        <dd>
          {app.cpuMillis / 1000} vCPU, {app.memoryMb} MB memory, disk {app.disk.usedMb ?? '?'} of {app.disk.limitMb} MB
        </dd>
        <dt>Running since</dt>
        <dd>{when(app.runningSince)}</dd>
      </dl>
      {canWrite && (
        <div className="row" role="group" aria-label="Run">
          <button type="button" onClick={() => void run('start')} disabled={act.busy}>
            Start
          </button>
          <button type="button" onClick={() => void run('restart')} disabled={act.busy}>
            Restart
          </button>
          <ConfirmButton label="Stop" title={`Stop ${app.name}?`} onConfirm={() => run('stop')}>
            {app.name} stops answering at {app.url ?? 'its address'} until it is started again.
          </ConfirmButton>
        </div>
      )}
      <ErrorText error={act.error} />
      {canWrite && (
        <form
          aria-labelledby="settings-title"
          onSubmit={async (e) => {
            e.preventDefault();
            if (
              await save.run(() =>
                unwrap(
                  api.PATCH('/v1/workspaces/{workspaceId}/apps/{appId}', {
                    params,
                    body: {
                      size: { cpuMillis: Math.round(Number(cpu) * 1000), memoryMb: Number(memory), diskMb: Number(disk) },
                      ...(app.source === 'image' && image ? { image } : {}),
                      ...(port ? { port: Number(port) } : {}),
                      ...(app.source !== 'image' ? { buildCommand: buildCommand || null, startCommand: startCommand || null } : {}),
                      ...(app.source === 'upload' ? { rootDirectory: rootDirectory || null } : {}),
                    },
                  }),
                ),
              )
            )
              reload();
          }}
        >
          <h2 id="settings-title">Settings</h2>
          <div className="grid">
            <Field label="vCPU" name="size/cpuMillis" type="number" value={cpu} onChange={setCpu} error={save.error} />
            <Field label="Memory (MB)" name="size/memoryMb" type="number" value={memory} onChange={setMemory} error={save.error} />
            <Field label="Disk (MB)" name="size/diskMb" type="number" value={disk} onChange={setDisk} error={save.error} />
            {app.source === 'image' && <Field label="Image" name="image" value={image} onChange={setImage} error={save.error} />}
            <Field label="Port" name="port" type="number" value={port} onChange={setPort} error={save.error} />
            {app.source !== 'image' && <Field label="Build command" name="buildCommand" value={buildCommand} onChange={setBuildCommand} error={save.error} />}
            {app.source !== 'image' && <Field label="Start command" name="startCommand" value={startCommand} onChange={setStartCommand} error={save.error} />}
            {app.source === 'upload' && <Field label="Root folder of the .zip" name="rootDirectory" value={rootDirectory} onChange={setRootDirectory} error={save.error} />}
          </div>
          <p className="hint">Changes apply from the next deployment.</p>
          <ErrorText error={save.error} />
          <button className="primary" disabled={save.busy}>
            Save settings
          </button>
        </form>
      )}
      {canWrite && (
        <div className="danger-zone">
          <h2>Delete</h2>
          <ConfirmButton
            label={`Delete ${app.name}`}
            title={`Delete the app ${app.name}?`}
            confirmLabel="Delete app"
            onConfirm={async () => {
              await unwrap(api.DELETE('/v1/workspaces/{workspaceId}/apps/{appId}', { params }));
              navigate(`${base}/apps`);
            }}
          >
            Its container, project folder, deployments, logs and custom domains are deleted. This cannot be undone.
          </ConfirmButton>
        </div>
      )}
    </div>
  );
}

function Deployments({ app, reload }: { app: App; reload(): void }) {
  const { workspace, canWrite, base } = useWorkspace();
  const [, navigate] = useLocation();
  const params = { path: { workspaceId: workspace.id, appId: app.id } };
  const [cursor, setCursor] = useState<string>();
  const [older, setOlder] = useState<string[]>([]);
  const page = useLoad(
    () => unwrap(api.GET('/v1/workspaces/{workspaceId}/apps/{appId}/deployments', { params: { ...params, query: { ...(cursor ? { cursor } : {}), limit: 20 } } })),
    [app.id, cursor],
    3000,
  );
  const act = useAction();
  const [zip, setZip] = useState<File>();
  const [progress, setProgress] = useState<number>();
  const open = (d: Deployment) => navigate(`${base}/apps/${app.id}/deployments/${d.id}`);
  return (
    <div>
      {canWrite && (
        <div className="row" role="group" aria-label="Deploy">
          {app.source !== 'upload' && (
            <button type="button" className="primary" disabled={act.busy} onClick={() => void act.run(async () => open(await unwrap(api.POST('/v1/workspaces/{workspaceId}/apps/{appId}/deployments', { params, body: {} }))))}>
              Redeploy
            </button>
          )}
        </div>
      )}
      {canWrite && app.source === 'upload' && (
        <form
          aria-label="Deploy a new .zip"
          onSubmit={(e) => {
            e.preventDefault();
            void act.run(async () => {
              if (!zip) throw new Error('Choose or drop a .zip of the code first');
              open(await upload('/v1/workspaces/{workspaceId}/apps/{appId}/deployments/upload', { workspaceId: workspace.id, appId: app.id }, zip, setProgress));
            });
          }}
        >
          <ZipDrop file={zip} onFile={setZip} progress={progress} />
          <button className="primary" disabled={act.busy}>
            Deploy this .zip
          </button>
        </form>
      )}
      <ErrorText error={act.error ?? page.error} />
      {!page.data ? (
        <Loading what="deployments" />
      ) : (
        <table>
          <caption className="visually-hidden">Deployments</caption>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Status</th>
              <th scope="col">Source</th>
              <th scope="col">Commit or image</th>
              <th scope="col">Reason</th>
              <th scope="col">By, when</th>
              {canWrite && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {page.data.data.map((d) => (
              <tr key={d.id}>
                <td>
                  <Link href={`${base}/apps/${app.id}/deployments/${d.id}`}>#{d.number}</Link>
                </td>
                <td>
                  <Status value={d.status} />
                </td>
                <td>{d.source}</td>
                <td>{d.commit?.sha ? `${d.commit.sha.slice(0, 7)} ${d.commit.message ?? ''}` : (d.image ?? '—')}</td>
                <td>{d.failureReason ?? ''}</td>
                <td>
                  {d.triggeredBy?.name ?? 'Slipway'}, {when(d.createdAt)}
                </td>
                {canWrite && (
                  <td>
                    {RUNNING_DEPLOYMENT.has(d.status) && d.status !== 'deploying' && (
                      <ConfirmButton
                        label={`Cancel #${d.number}`}
                        title={`Cancel deployment #${d.number}?`}
                        confirmLabel="Cancel deployment"
                        onConfirm={async () => {
                          await unwrap(api.POST('/v1/workspaces/{workspaceId}/apps/{appId}/deployments/{deploymentId}/cancel', { params: { path: { ...params.path, deploymentId: d.id } } }));
                          page.reload();
                        }}
                      >
                        Its build stops; the live deployment stays.
                      </ConfirmButton>
                    )}
                    {d.imageAvailable && d.status !== 'live' && d.id !== app.currentDeployment?.id && !RUNNING_DEPLOYMENT.has(d.status) && (
                      <ConfirmButton
                        danger={false}
                        label={`Roll back to #${d.number}`}
                        title={`Roll back to deployment #${d.number}?`}
                        confirmLabel="Roll back"
                        onConfirm={async () => {
                          const r = await unwrap(api.POST('/v1/workspaces/{workspaceId}/apps/{appId}/deployments/{deploymentId}/rollback', { params: { path: { ...params.path, deploymentId: d.id } } }));
                          reload();
                          open(r);
                        }}
                      >
                        A new deployment runs the image of #{d.number} without a build; it replaces the live one with no downtime.
                      </ConfirmButton>
                    )}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="row">
        {older.length > 0 && (
          <button type="button" onClick={() => (setCursor(older.at(-2)), setOlder(older.slice(0, -1)))}>
            Newer
          </button>
        )}
        {page.data?.nextCursor && (
          <button type="button" onClick={() => (setOlder([...older, page.data!.nextCursor!]), setCursor(page.data!.nextCursor!))}>
            Older
          </button>
        )}
      </div>
    </div>
  );
}

/** Follows a deployment's build and deploy log: long polls (`wait`) until done; stops in a background tab. */
function useDeploymentLog(workspaceId: string, appId: string, deploymentId: string) {
  const visible = useVisible();
  const [state] = useState(() => ({ lines: [] as string[], after: 0, done: false }));
  const [version, setVersion] = useState(0);
  const [error, setError] = useState<string>();
  useEffect(() => {
    if (!visible || state.done) return;
    const ac = new AbortController();
    void (async () => {
      while (!ac.signal.aborted && !state.done) {
        try {
          const chunk = await unwrap(
            api.GET('/v1/workspaces/{workspaceId}/apps/{appId}/deployments/{deploymentId}/logs', {
              params: { path: { workspaceId, appId, deploymentId }, query: { after: state.after, wait: 20, limit: 5000 } },
              signal: ac.signal,
            }),
          );
          for (const l of chunk.data) state.lines.push(l.text);
          state.after = chunk.nextAfter;
          state.done = chunk.done;
          setError(undefined);
          if (chunk.data.length || chunk.done) setVersion((v) => v + 1);
        } catch (e) {
          if (ac.signal.aborted) return;
          setError(messageOf(e));
          await new Promise((r) => setTimeout(r, 2000));
        }
      }
    })();
    return () => ac.abort();
  }, [visible, workspaceId, appId, deploymentId, state]);
  return { lines: state.lines, version, done: state.done, error };
}

function DeploymentPage({ app }: { app: App }) {
  const { workspace, canWrite } = useWorkspace();
  const { deploymentId } = useParams<{ deploymentId: string }>();
  const log = useDeploymentLog(workspace.id, app.id, deploymentId);
  const d = useLoad(
    () => unwrap(api.GET('/v1/workspaces/{workspaceId}/apps/{appId}/deployments/{deploymentId}', { params: { path: { workspaceId: workspace.id, appId: app.id, deploymentId } } })),
    [deploymentId, log.done],
    log.done ? undefined : 2000,
  );
  return (
    <div>
      <h2>
        Deployment {d.data ? `#${d.data.number}` : ''} {d.data && <Status value={d.data.status} />}
      </h2>
      {d.data?.failureReason && <p className="error">{d.data.failureReason}</p>}
      {canWrite && d.data && (d.data.status === 'queued' || d.data.status === 'building') && (
        <ConfirmButton
          label={`Cancel #${d.data.number}`}
          title={`Cancel deployment #${d.data.number}?`}
          confirmLabel="Cancel deployment"
          onConfirm={async () => {
            await unwrap(api.POST('/v1/workspaces/{workspaceId}/apps/{appId}/deployments/{deploymentId}/cancel', { params: { path: { workspaceId: workspace.id, appId: app.id, deploymentId } } }));
            d.reload();
          }}
        >
          Its build stops; the live deployment stays.
        </ConfirmButton>
      )}
      <ErrorText error={log.error ?? d.error} />
      <LogView label="Build and deploy log" lines={log.lines} version={log.version} />
      <p className="hint" aria-live="polite">
        {log.done ? `${log.lines.length} lines, finished` : `${log.lines.length} lines, following…`}
      </p>
    </div>
  );
}

function Env({ app }: { app: App }) {
  const { workspace, canWrite } = useWorkspace();
  const params = { path: { workspaceId: workspace.id, appId: app.id } };
  const env = useLoad(() => unwrap(api.GET('/v1/workspaces/{workspaceId}/apps/{appId}/env', { params })), [app.id]);
  const [rows, setRows] = useState<{ key: string; value: string; secret: boolean; stored: boolean }[]>();
  useEffect(() => {
    if (env.data) setRows(env.data.data.map((v) => ({ key: v.key, value: v.secret ? '' : (v.value ?? ''), secret: v.secret, stored: true })));
  }, [env.data]);
  const save = useAction();
  const [saved, setSaved] = useState(false);
  if (!rows) return env.error ? <ErrorText error={env.error} /> : <Loading what="variables" />;
  const set = (i: number, patch: Partial<(typeof rows)[number]>) => setRows(rows.map((r, k) => (k === i ? { ...r, ...patch } : r)));
  if (!canWrite)
    return (
      <div>
        <h2>Environment variables</h2>
        {rows.length === 0 ? (
          <p>No variables.</p>
        ) : (
          <table>
            <caption className="visually-hidden">Environment variables</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Value</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.key}>
                  <td>
                    <code>{r.key}</code>
                  </td>
                  <td>{r.secret ? '•••••• (secret)' : r.value}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    );
  return (
    <form
      aria-labelledby="env-title"
      onSubmit={async (e) => {
        e.preventDefault();
        setSaved(false);
        const ok = await save.run(async () => {
          const next = await unwrap(api.PUT('/v1/workspaces/{workspaceId}/apps/{appId}/env', { params, body: { variables: rows.map((r) => ({ key: r.key, value: r.value, secret: r.secret })) } }));
          setRows(next.data.map((v) => ({ key: v.key, value: v.secret ? '' : (v.value ?? ''), secret: v.secret, stored: true })));
        });
        setSaved(ok);
      }}
    >
      <h2 id="env-title">Environment variables</h2>
      <p className="hint">Secret values are write-only: shown masked, kept when left empty. Changes apply from the next restart or deployment.</p>
      {rows.length === 0 && <p>No variables.</p>}
      {rows.map((r, i) => (
        <div className="row env" key={i}>
          <Field label={`Name ${i + 1}`} name={`variables/${i}/key`} value={r.key} onChange={(v) => set(i, { key: v })} error={save.error} />
          <Field
            label={`Value of ${r.key || `variable ${i + 1}`}`}
            name={`variables/${i}/value`}
            type={r.secret ? 'password' : 'text'}
            placeholder={r.secret && r.stored ? '•••••• (unchanged)' : ''}
            value={r.value}
            onChange={(v) => set(i, { value: v })}
            error={save.error}
          />
          <label className="check">
            <input type="checkbox" checked={r.secret} disabled={r.stored && r.secret} onChange={(e) => set(i, { secret: e.target.checked })} /> Secret
          </label>
          <button type="button" aria-label={`Remove ${r.key || `variable ${i + 1}`}`} onClick={() => setRows(rows.filter((_, k) => k !== i))}>
            Remove
          </button>
        </div>
      ))}
      <ErrorText error={save.error} />
      {saved && <p role="status">Saved. Redeploy the app to use them.</p>}
      <div className="row">
        <button type="button" onClick={() => setRows([...rows, { key: '', value: '', secret: false, stored: false }])}>
          Add variable
        </button>
        <button className="primary" disabled={save.busy}>
          Save variables
        </button>
      </div>
    </form>
  );
}

function RuntimeLogs({ app }: { app: App }) {
  const { workspace } = useWorkspace();
  const visible = useVisible();
  const [state] = useState(() => ({ lines: [] as string[], after: 0 }));
  const [version, setVersion] = useState(0);
  const [error, setError] = useState<string>();
  useEffect(() => {
    if (!visible) return;
    let live = true;
    const read = async () => {
      try {
        for (;;) {
          const c = await unwrap(api.GET('/v1/workspaces/{workspaceId}/apps/{appId}/logs', { params: { path: { workspaceId: workspace.id, appId: app.id }, query: { after: state.after, limit: 1000 } } }));
          if (!live) return;
          for (const l of c.data) state.lines.push(l.text);
          state.after = c.nextAfter;
          if (c.data.length) setVersion((v) => v + 1);
          if (c.data.length < 1000) break;
        }
        setError(undefined);
      } catch (e) {
        setError(messageOf(e));
      }
    };
    void read();
    const t = setInterval(() => void read(), 2000);
    return () => {
      live = false;
      clearInterval(t);
    };
  }, [visible, workspace.id, app.id, state]);
  return (
    <div>
      <h2>Runtime logs</h2>
      <ErrorText error={error} />
      <LogView label="Runtime log" lines={state.lines} version={version} />
    </div>
  );
}
