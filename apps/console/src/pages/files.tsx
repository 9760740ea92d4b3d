import { useState } from 'react';
import { api, unwrap, upload, type App } from '../api';
import { useAction, useLoad } from '../hooks';
import { ConfirmButton, ErrorText, Field, Loading, useWorkspace, when } from '../ui';

const join = (dir: string, name: string) => (dir ? `${dir}/${name}` : name);

/** The project folder: browse, download, upload (with progress), rename, delete. */
export function Files({ app }: { app: App }) {
  const { workspace, canWrite } = useWorkspace();
  const [dir, setDir] = useState('');
  const path = { workspaceId: workspace.id, appId: app.id };
  const list = useLoad(() => unwrap(api.GET('/v1/workspaces/{workspaceId}/apps/{appId}/files', { params: { path, query: { path: dir } } })), [app.id, dir]);
  const act = useAction();
  const [progress, setProgress] = useState<number>();
  const [renaming, setRenaming] = useState<{ from: string; to: string }>();
  const contentUrl = (p: string) => `/v1/workspaces/${workspace.id}/apps/${app.id}/files/content?path=${encodeURIComponent(p)}`;
  return (
    <div>
      <h2>Project folder</h2>
      <nav aria-label="Folder" className="crumbs">
        <button type="button" onClick={() => setDir('')}>
          /
        </button>
        {dir
          .split('/')
          .filter(Boolean)
          .map((part, i, all) => (
            <button key={i} type="button" onClick={() => setDir(all.slice(0, i + 1).join('/'))}>
              {part}/
            </button>
          ))}
      </nav>
      <ErrorText error={list.error ?? act.error} />
      {canWrite && (
        <div className="field">
          <label htmlFor="file-upload">Upload a file to /{dir}</label>
          <input
            id="file-upload"
            type="file"
            onChange={(e) => {
              const f = e.target.files?.[0];
              if (!f) return;
              void act
                .run(() => upload('/v1/workspaces/{workspaceId}/apps/{appId}/files/content', { ...path, query: { path: join(dir, f.name) } }, f, setProgress))
                .then(() => (setProgress(undefined), list.reload()));
              e.target.value = '';
            }}
          />
          {progress !== undefined && <progress aria-label="Upload progress" max={1} value={progress} />}
        </div>
      )}
      {!list.data ? (
        <Loading what="files" />
      ) : (
        <table>
          <caption className="visually-hidden">Files in /{dir}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Size</th>
              <th scope="col">Modified</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.data.entries.map((f) => {
              const p = join(dir, f.name);
              return (
                <tr key={f.name}>
                  <td>
                    {f.type === 'directory' ? (
                      <button type="button" className="link" onClick={() => setDir(p)}>
                        {f.name}/
                      </button>
                    ) : (
                      f.name
                    )}
                  </td>
                  <td>{f.type === 'file' ? `${f.size} B` : ''}</td>
                  <td>{when(f.modifiedAt)}</td>
                  <td className="row">
                    {canWrite && f.type === 'file' && (
                      <a className="button" href={contentUrl(p)} download={f.name} aria-label={`Download ${f.name}`}>
                        Download
                      </a>
                    )}
                    {canWrite && (
                      <button type="button" aria-label={`Rename ${f.name}`} onClick={() => setRenaming({ from: p, to: p })}>
                        Rename
                      </button>
                    )}
                    {canWrite && (
                      <ConfirmButton
                        label={`Delete ${f.name}`}
                        title={`Delete ${p}?`}
                        confirmLabel="Delete"
                        onConfirm={async () => {
                          await unwrap(api.DELETE('/v1/workspaces/{workspaceId}/apps/{appId}/files', { params: { path, query: { path: p, recursive: f.type === 'directory' ? 'true' : 'false' } } }));
                          list.reload();
                        }}
                      >
                        {f.type === 'directory' ? `The folder ${p} and everything in it is deleted.` : `The file ${p} is deleted.`}
                      </ConfirmButton>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {renaming && (
        <form
          aria-label={`Rename ${renaming.from}`}
          onSubmit={async (e) => {
            e.preventDefault();
            if (await act.run(() => unwrap(api.POST('/v1/workspaces/{workspaceId}/apps/{appId}/files/rename', { params: { path }, body: renaming })))) {
              setRenaming(undefined);
              list.reload();
            }
          }}
        >
          <Field label={`New path of ${renaming.from}`} name="to" value={renaming.to} onChange={(to) => setRenaming({ ...renaming, to })} error={act.error} />
          <button className="primary">Rename</button>
          <button type="button" onClick={() => setRenaming(undefined)}>
            Cancel
          </button>
        </form>
      )}
    </div>
  );
}
