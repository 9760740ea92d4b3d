import { useEffect, useState } from 'react';
import { Link, useLocation, useParams } from 'wouter';
import { ApiError, api, unwrap, type Schemas } from '../api';
import { useAction, useLoad } from '../hooks';
import { ConfirmButton, CopyButton, ErrorText, Field, Loading, Select, Status, useWorkspace, when } from '../ui';

type Engine = Schemas['Database']['engine'];

export function Databases() {
  const { workspace, canWrite, base } = useWorkspace();
  const workspaceId = workspace.id;
  const list = useLoad(() => unwrap(api.GET('/v1/workspaces/{workspaceId}/databases', { params: { path: { workspaceId } } })), [workspaceId], 5000);
  return (
    <section aria-labelledby="db-title">
      <h1 id="db-title">Databases</h1>
      <ErrorText error={list.error} />
      {!list.data ? (
        <Loading what="databases" />
      ) : list.data.data.length === 0 ? (
        <p>No databases yet.</p>
      ) : (
        <table>
          <caption className="visually-hidden">Databases</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Engine</th>
              <th scope="col">Status</th>
              <th scope="col">Size</th>
            </tr>
          </thead>
          <tbody>
            {list.data.data.map((d) => (
              <tr key={d.id}>
                <td>
                  <Link href={`${base}/databases/${d.id}`}>{d.name}</Link>
                </td>
                <td>
                  {d.engine} {d.version}
                </td>
                <td>
                  <Status value={d.status} />
                </td>
                <td>
                  {d.cpuMillis / 1000} vCPU, {d.memoryMb} MB, {d.diskMb} MB disk
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {canWrite && <NewDatabase onCreated={list.reload} />}
    </section>
  );
}

function NewDatabase({ onCreated }: { onCreated(): void }) {
  const { workspace, base } = useWorkspace();
  const [, navigate] = useLocation();
  const workspaceId = workspace.id;
  const engines = useLoad(() => unwrap(api.GET('/v1/database-engines')), []);
  const plan = useLoad(() => unwrap(api.GET('/v1/workspaces/{workspaceId}/plan', { params: { path: { workspaceId } } })), [workspaceId]);
  const [name, setName] = useState('');
  const [engine, setEngine] = useState<Engine>('postgres');
  const [version, setVersion] = useState('');
  const [memory, setMemory] = useState('');
  const [disk, setDisk] = useState('');
  const create = useAction();
  const info = engines.data?.data.find((e) => e.engine === engine);
  const min = plan.data?.minimums[engine];
  return (
    <form
      aria-labelledby="new-db"
      onSubmit={async (e) => {
        e.preventDefault();
        await create.run(async () => {
          const d = await unwrap(
            api.POST('/v1/workspaces/{workspaceId}/databases', {
              params: { path: { workspaceId } },
              body: {
                name,
                engine,
                memoryMb: memory ? Number(memory) : (min?.memoryMb ?? 256),
                ...(min ? { cpuMillis: min.cpuMillis } : {}),
                ...(disk ? { diskMb: Number(disk) } : min ? { diskMb: min.diskMb } : {}),
                ...(version ? { version } : {}),
              },
            }),
          );
          onCreated();
          navigate(`${base}/databases/${d.id}`);
        });
      }}
    >
      <h2 id="new-db">New database</h2>
      <Field label="Database name" name="name" value={name} onChange={setName} error={create.error} required />
      <Select
        label="Engine"
        value={engine}
        options={(engines.data?.data ?? [{ engine: 'postgres' as const, available: true, reason: null }]).map((e) => ({ value: e.engine, label: e.available ? e.engine : `${e.engine} (unavailable: ${e.reason})` }))}
        onChange={(v) => (setEngine(v), setVersion(''))}
      />
      {info && <Select label="Version" value={version || info.defaultVersion} options={info.versions} onChange={setVersion} />}
      <Field label="Memory in MB (optional)" name="memoryMb" type="number" value={memory} onChange={setMemory} error={create.error} hint={min ? `At least ${min.memoryMb} MB` : undefined} />
      <Field label="Disk in MB (optional)" name="diskMb" type="number" value={disk} onChange={setDisk} error={create.error} hint={min ? `At least ${min.diskMb} MB` : undefined} />
      <ErrorText error={create.error} />
      <button className="primary" disabled={create.busy}>
        Create database
      </button>
    </form>
  );
}

export function DatabasePage() {
  const { workspace, canWrite, base } = useWorkspace();
  const { dbId } = useParams<{ dbId: string }>();
  const [, navigate] = useLocation();
  const path = { workspaceId: workspace.id, databaseId: dbId };
  const db = useLoad(() => unwrap(api.GET('/v1/workspaces/{workspaceId}/databases/{databaseId}', { params: { path } })), [dbId], 3000);
  const act = useAction();
  useEffect(() => {
    if (db.data) document.title = `${db.data.name} · Slipway`;
  }, [db.data]);
  if (!db.data) return db.error ? <ErrorText error={db.error} /> : <Loading what="the database" />;
  const d = db.data;
  const run = (what: 'stop' | 'start' | 'rotate') =>
    act
      .run(() =>
        what === 'stop'
          ? unwrap(api.POST('/v1/workspaces/{workspaceId}/databases/{databaseId}/stop', { params: { path } }))
          : what === 'start'
            ? unwrap(api.POST('/v1/workspaces/{workspaceId}/databases/{databaseId}/start', { params: { path } }))
            : unwrap(api.POST('/v1/workspaces/{workspaceId}/databases/{databaseId}/rotate-password', { params: { path } })),
      )
      .then(db.reload);
  return (
    <section aria-labelledby="db-name">
      <div className="row spread">
        <h1 id="db-name">{d.name}</h1>
        <Status value={d.status} />
      </div>
      {d.statusMessage && <p className="error">{d.statusMessage}</p>}
      <dl className="facts">
        <dt>Engine</dt>
        <dd>
          {d.engine} {d.version}
        </dd>
        <dt>Inside the workspace</dt>
        <dd>
          <code>
            {d.internalHost}:{d.port}
          </code>
          , user <code>{d.username}</code>, database <code>{d.databaseName}</code>
        </dd>
        <dt>Size</dt>
        <dd>
          {d.cpuMillis / 1000} vCPU, {d.memoryMb} MB memory, {d.diskMb} MB disk
        </dd>
      </dl>
      <ErrorText error={act.error} />
      {canWrite && (
        <div className="row" role="group" aria-label="Run">
          {d.desiredState === 'stopped' ? (
            <button type="button" onClick={() => void run('start')}>
              Start
            </button>
          ) : (
            <ConfirmButton label="Stop" title={`Stop ${d.name}?`} onConfirm={() => run('stop')}>
              Apps using {d.name} lose their connection until it is started again. The data stays.
            </ConfirmButton>
          )}
          <ConfirmButton label="Rotate password" title={`Rotate the password of ${d.name}?`} onConfirm={() => run('rotate')}>
            The current password stops working at once: apps connected through a variable get the new one from their next deployment.
          </ConfirmButton>
          <ConfirmButton
            label={`Delete ${d.name}`}
            title={`Delete the database ${d.name}?`}
            confirmLabel="Delete database"
            onConfirm={async () => {
              await unwrap(api.DELETE('/v1/workspaces/{workspaceId}/databases/{databaseId}', { params: { path } }));
              navigate(`${base}/databases`);
            }}
          >
            Its container and all its data are erased. Backups are kept until they expire.
          </ConfirmButton>
        </div>
      )}
      {canWrite && <Connection database={d} />}
      {canWrite && <ConnectApp database={d} />}
      {canWrite && <Resize database={d} onDone={db.reload} />}
      {canWrite && <PublicAccess database={d} onDone={db.reload} />}
      <Backups database={d} />
    </section>
  );
}

function Connection({ database }: { database: Schemas['Database'] }) {
  const { workspace } = useWorkspace();
  const [conn, setConn] = useState<Schemas['DatabaseConnection']>();
  const act = useAction();
  return (
    <div>
      <h2>Connection</h2>
      {!conn ? (
        <button
          type="button"
          onClick={() => void act.run(async () => setConn(await unwrap(api.GET('/v1/workspaces/{workspaceId}/databases/{databaseId}/connection', { params: { path: { workspaceId: workspace.id, databaseId: database.id } } }))))}
        >
          Reveal connection details and password
        </button>
      ) : (
        <dl className="facts">
          <dt>URL</dt>
          <dd>
            <code>{conn.url}</code> <CopyButton text={conn.url} label="Copy the connection URL" />
          </dd>
          <dt>Password</dt>
          <dd>
            <code>{conn.password}</code> <CopyButton text={conn.password} label="Copy the password" />
          </dd>
          {conn.publicUrl && (
            <>
              <dt>Public URL (TLS)</dt>
              <dd>
                <code>{conn.publicUrl}</code> <CopyButton text={conn.publicUrl} label="Copy the public URL" /> <a href={conn.caCertificateUrl}>CA certificate</a>
              </dd>
            </>
          )}
        </dl>
      )}
      <ErrorText error={act.error} />
    </div>
  );
}

function ConnectApp({ database }: { database: Schemas['Database'] }) {
  const { workspace } = useWorkspace();
  const apps = useLoad(() => unwrap(api.GET('/v1/workspaces/{workspaceId}/apps', { params: { path: { workspaceId: workspace.id } } })), [workspace.id]);
  const [appId, setAppId] = useState('');
  const [variable, setVariable] = useState('DATABASE_URL');
  const act = useAction();
  const [done, setDone] = useState<string>();
  return (
    <form
      aria-labelledby="connect-title"
      onSubmit={async (e) => {
        e.preventDefault();
        await act.run(async () => {
          const r = await unwrap(
            api.POST('/v1/workspaces/{workspaceId}/databases/{databaseId}/connect', { params: { path: { workspaceId: workspace.id, databaseId: database.id } }, body: { appId, variable } }),
          );
          setDone(`${r.variable} is set on the app; it applies from its next deployment.`);
        });
      }}
    >
      <h2 id="connect-title">Connect to an app</h2>
      <Select label="App" value={appId} options={[{ value: '', label: 'Choose an app' }, ...(apps.data?.data ?? []).map((a) => ({ value: a.id, label: a.name }))]} onChange={setAppId} />
      <Field label="Variable" name="variable" value={variable} onChange={setVariable} error={act.error} />
      <ErrorText error={act.error} />
      {done && <p role="status">{done}</p>}
      <button className="primary" disabled={act.busy || !appId}>
        Connect
      </button>
    </form>
  );
}

function Resize({ database, onDone }: { database: Schemas['Database']; onDone(): void }) {
  const { workspace } = useWorkspace();
  const [cpu, setCpu] = useState(String(database.cpuMillis / 1000));
  const [memory, setMemory] = useState(String(database.memoryMb));
  const act = useAction();
  return (
    <form
      aria-labelledby="resize-title"
      onSubmit={async (e) => {
        e.preventDefault();
        if (
          await act.run(() =>
            unwrap(
              api.PATCH('/v1/workspaces/{workspaceId}/databases/{databaseId}', {
                params: { path: { workspaceId: workspace.id, databaseId: database.id } },
                body: { cpuMillis: Math.round(Number(cpu) * 1000), memoryMb: Number(memory) },
              }),
            ),
          )
        )
          onDone();
      }}
    >
      <h2 id="resize-title">Resize</h2>
      <div className="grid">
        <Field label="vCPU" name="cpuMillis" type="number" value={cpu} onChange={setCpu} error={act.error} />
        <Field label="Memory (MB)" name="memoryMb" type="number" value={memory} onChange={setMemory} error={act.error} />
      </div>
      <p className="hint">The container is recreated on its data: a short interruption.</p>
      <ErrorText error={act.error} />
      <button disabled={act.busy}>Resize</button>
    </form>
  );
}

function PublicAccess({ database, onDone }: { database: Schemas['Database']; onDone(): void }) {
  const { workspace } = useWorkspace();
  const [enabled, setEnabled] = useState(database.public.enabled);
  const [cidrs, setCidrs] = useState(database.public.allowedCidrs.join('\n'));
  const act = useAction();
  return (
    <form
      aria-labelledby="public-title"
      onSubmit={async (e) => {
        e.preventDefault();
        const allowedCidrs = cidrs.split(/[\s,]+/).filter(Boolean);
        if (
          await act.run(() =>
            unwrap(api.PUT('/v1/workspaces/{workspaceId}/databases/{databaseId}/public', { params: { path: { workspaceId: workspace.id, databaseId: database.id } }, body: { enabled, allowedCidrs } })),
          )
        )
          onDone();
      }}
    >
      <h2 id="public-title">Public access</h2>
      <p>{database.public.enabled ? `Reachable over TLS at ${database.public.host}:${database.public.port} from the ranges below.` : 'Reachable only from apps of this workspace.'}</p>
      <label className="check">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Allow connections from the internet (TLS)
      </label>
      <div className="field">
        <label htmlFor="cidrs">Allowed address ranges, one per line</label>
        <textarea id="cidrs" rows={3} value={cidrs} onChange={(e) => setCidrs(e.target.value)} placeholder="203.0.113.0/24" />
      </div>
      <ErrorText error={act.error} />
      <button disabled={act.busy}>Save public access</button>
    </form>
  );
}

function Backups({ database }: { database: Schemas['Database'] }) {
  const { workspace, canWrite, base } = useWorkspace();
  const [, navigate] = useLocation();
  const path = { workspaceId: workspace.id, databaseId: database.id };
  const [cursor, setCursor] = useState<string>();
  const list = useLoad(() => unwrap(api.GET('/v1/workspaces/{workspaceId}/databases/{databaseId}/backups', { params: { path, query: cursor ? { cursor } : {} } })), [database.id, cursor], 3000);
  const act = useAction();
  const backUp = () =>
    act.run(async () => {
      const r = await api.POST('/v1/workspaces/{workspaceId}/databases/{databaseId}/backups', { params: { path } });
      if (r.response.status === 429) {
        const seconds = Number(r.response.headers.get('retry-after') ?? '0');
        throw new ApiError(429, 'backup_rate_limited', `One manual backup an hour: the next is allowed at ${new Date(Date.now() + seconds * 1000).toLocaleTimeString()}.`);
      }
      await unwrap(Promise.resolve(r));
      list.reload();
    });
  return (
    <div>
      <h2>Backups</h2>
      {canWrite && (
        <button type="button" className="primary" disabled={act.busy} onClick={() => void backUp()}>
          Back up now
        </button>
      )}
      <ErrorText error={act.error ?? list.error} />
      {!list.data ? (
        <Loading what="backups" />
      ) : list.data.data.length === 0 ? (
        <p>No backups yet.</p>
      ) : (
        <table>
          <caption className="visually-hidden">Backups</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Kind</th>
              <th scope="col">Status</th>
              <th scope="col">Size</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.data.data.map((b) => (
              <tr key={b.id}>
                <td>{when(b.createdAt)}</td>
                <td>{b.kind.replace('_', '-')}</td>
                <td>
                  <Status value={b.status} /> {b.error}
                </td>
                <td>{b.sizeBytes !== null ? `${Math.ceil(b.sizeBytes / 1024)} KB` : ''}</td>
                <td className="row">
                  {canWrite && b.status === 'completed' && (
                    <a className="button" href={`/v1/workspaces/${workspace.id}/databases/${database.id}/backups/${b.id}/download`} aria-label={`Download the backup of ${when(b.createdAt)}`}>
                      Download
                    </a>
                  )}
                  {canWrite && b.status === 'completed' && (
                    <ConfirmButton
                      danger={false}
                      label={`Restore into a new database (${when(b.createdAt)})`}
                      title="Restore into a new database?"
                      confirmLabel="Restore into a new database"
                      onConfirm={async () => {
                        const r = await unwrap(api.POST('/v1/workspaces/{workspaceId}/databases/{databaseId}/backups/{backupId}/restore', { params: { path: { ...path, backupId: b.id } }, body: { target: 'new' } }));
                        navigate(`${base}/databases/${r.databaseId}`);
                      }}
                    >
                      A new {database.engine} {database.version} database of the same size is created (it counts against your plan) and the backup is loaded into it. {database.name} is not touched.
                    </ConfirmButton>
                  )}
                  {canWrite && b.status === 'completed' && (
                    <ConfirmButton
                      label={`Restore into ${database.name} (${when(b.createdAt)})`}
                      title={`Restore into ${database.name}?`}
                      confirmLabel={`Replace the data of ${database.name}`}
                      onConfirm={async () => {
                        await unwrap(api.POST('/v1/workspaces/{workspaceId}/databases/{databaseId}/backups/{backupId}/restore', { params: { path: { ...path, backupId: b.id } }, body: { target: 'same' } }));
                        list.reload();
                      }}
                    >
                      The current data of {database.name} is replaced by this backup. First a pre-restore backup of the current data is made: if it fails, nothing changes; if the
                      restore fails, that backup can be restored. Apps lose their connection while it runs.
                    </ConfirmButton>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {list.data?.nextCursor && (
        <button type="button" onClick={() => setCursor(list.data!.nextCursor!)}>
          Older backups
        </button>
      )}
    </div>
  );
}
