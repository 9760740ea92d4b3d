import { useState } from 'react';
import { useLocation } from 'wouter';
import { api, unwrap, upload } from '../api';
import { useAction, useLoad } from '../hooks';
import { ErrorText, Field, Select, useWorkspace } from '../ui';
import { ZipDrop } from './zip-drop';

type Source = 'image' | 'upload' | 'github';

export function NewApp() {
  const { workspace, base } = useWorkspace();
  const workspaceId = workspace.id;
  const [, navigate] = useLocation();
  const plan = useLoad(() => unwrap(api.GET('/v1/workspaces/{workspaceId}/plan', { params: { path: { workspaceId } } })), [workspaceId]);
  const installs = useLoad(
    () => api.GET('/v1/workspaces/{workspaceId}/github/installations', { params: { path: { workspaceId } } }).then((r) => r.data?.data ?? null),
    [workspaceId],
  );
  const [source, setSource] = useState<Source>('image');
  const [name, setName] = useState('');
  const [image, setImage] = useState('');
  const [port, setPort] = useState('');
  const [memory, setMemory] = useState('');
  const [zip, setZip] = useState<File>();
  const [progress, setProgress] = useState<number>();
  const [installationId, setInstallationId] = useState('');
  const [repo, setRepo] = useState('');
  const [branch, setBranch] = useState('main');
  const [rootDir, setRootDir] = useState('');
  const [autoDeploy, setAutoDeploy] = useState(true);
  const [watchRootOnly, setWatchRootOnly] = useState(false);
  const action = useAction();
  const min = plan.data?.minimums.app;
  const [repoPage, setRepoPage] = useState(1);
  const repos = useLoad(
    () =>
      installationId
        ? unwrap(
            api.GET('/v1/workspaces/{workspaceId}/github/installations/{installationId}/repositories', {
              params: { path: { workspaceId, installationId: Number(installationId) }, query: { page: repoPage, perPage: 100 } },
            }),
          )
        : Promise.resolve(undefined),
    [workspaceId, installationId, repoPage],
  );
  const sources: { value: Source; label: string }[] = [
    { value: 'image', label: 'A container image' },
    { value: 'upload', label: 'A .zip of the code' },
    ...(installs.data ? [{ value: 'github' as const, label: 'A GitHub repository' }] : []),
  ];
  const submit = () =>
    action.run(async () => {
      if (source === 'upload' && !zip) throw new Error('Choose or drop a .zip of the code first');
      const memoryMb = memory ? Number(memory) : (min?.memoryMb ?? 256);
      const app = await unwrap(
        api.POST('/v1/workspaces/{workspaceId}/apps', {
          params: { path: { workspaceId } },
          body: {
            name,
            kind: 'web',
            source,
            memoryMb,
            ...(min ? { cpuMillis: min.cpuMillis } : {}),
            ...(source === 'image' ? { image } : {}),
            ...(port ? { port: Number(port) } : {}),
            ...(source === 'github'
              ? { github: { installationId: Number(installationId), repoFullName: repo, branch, ...(rootDir ? { rootDir } : {}), autoDeploy, watchRootOnly } }
              : {}),
          },
        }),
      );
      if (source === 'image') await unwrap(api.POST('/v1/workspaces/{workspaceId}/apps/{appId}/deployments', { params: { path: { workspaceId, appId: app.id } }, body: {} }));
      if (source === 'upload' && zip) {
        const d = await upload('/v1/workspaces/{workspaceId}/apps/{appId}/deployments/upload', { workspaceId, appId: app.id }, zip, setProgress);
        navigate(`${base}/apps/${app.id}/deployments/${d.id}`);
        return;
      }
      navigate(`${base}/apps/${app.id}`);
    });
  return (
    <form
      aria-labelledby="new-app"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <h1 id="new-app">New app</h1>
      <Select label="Deploy from" value={source} options={sources} onChange={setSource} />
      <Field label="App name" name="name" value={name} onChange={setName} error={action.error} required />
      {source === 'image' && <Field label="Image" name="image" value={image} onChange={setImage} error={action.error} placeholder="nginx:1.27" required />}
      {source === 'upload' && <ZipDrop file={zip} onFile={setZip} progress={progress} />}
      {source === 'github' && installs.data && (
        <fieldset>
          <legend>Repository</legend>
          <p>
            <button
              type="button"
              onClick={() =>
                void action.run(async () => {
                  const link = await unwrap(api.GET('/v1/workspaces/{workspaceId}/github/install-url', { params: { path: { workspaceId } } }));
                  window.location.assign(link.url);
                })
              }
            >
              {installs.data.length ? 'Install the GitHub App on another account' : 'Install the GitHub App on GitHub'}
            </button>
          </p>
          <Select
            label="Installation"
            value={installationId}
            options={[{ value: '', label: 'Choose…' }, ...installs.data.map((i) => ({ value: String(i.id), label: i.account.login }))]}
            onChange={(v) => (setInstallationId(v), setRepoPage(1))}
          />
          {repos.data && (
            <Select
              label="Repository"
              value={repo}
              options={[{ value: '', label: 'Choose…' }, ...repos.data.data.map((r) => ({ value: r.fullName, label: r.fullName }))]}
              onChange={(v) => {
                setRepo(v);
                const found = repos.data?.data.find((r) => r.fullName === v);
                if (found) setBranch(found.defaultBranch);
              }}
            />
          )}
          {repos.data && (repos.data.page > 1 || repos.data.nextPage) && (
            <div className="row" role="group" aria-label="Pages of repositories">
              <span>
                Page {repos.data.page} of {Math.max(1, Math.ceil(repos.data.total / repos.data.perPage))}
              </span>
              {repos.data.page > 1 && (
                <button type="button" onClick={() => setRepoPage(repoPage - 1)}>
                  Previous repositories
                </button>
              )}
              {repos.data.nextPage && (
                <button type="button" onClick={() => setRepoPage(repos.data!.nextPage!)}>
                  More repositories
                </button>
              )}
            </div>
          )}
          <Field label="Branch" name="github/branch" value={branch} onChange={setBranch} error={action.error} />
          <Field label="Root folder (rootDir)" name="github/rootDir" value={rootDir} onChange={setRootDir} error={action.error} placeholder="apps/web" />
          <label className="check">
            <input type="checkbox" checked={autoDeploy} onChange={(e) => setAutoDeploy(e.target.checked)} /> Deploy every push to the branch
          </label>
          <label className="check">
            <input type="checkbox" checked={watchRootOnly} onChange={(e) => setWatchRootOnly(e.target.checked)} /> Only pushes that change the root folder
          </label>
        </fieldset>
      )}
      <Field label="Port (optional)" name="port" type="number" value={port} onChange={setPort} error={action.error} hint="The port the app listens on; detected when empty" />
      <Field
        label="Memory in MB (optional)"
        name="memoryMb"
        type="number"
        value={memory}
        onChange={setMemory}
        error={action.error}
        hint={min ? `At least ${min.memoryMb} MB on your plan` : undefined}
      />
      <ErrorText error={action.error} />
      <button className="primary" disabled={action.busy}>
        {action.busy && progress !== undefined ? `Uploading ${Math.round(progress * 100)} %` : 'Create and deploy'}
      </button>
    </form>
  );
}
