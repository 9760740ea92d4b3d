import { Link } from 'wouter';
import { api, unwrap } from '../api';
import { useLoad } from '../hooks';
import { ErrorText, Loading, Status, useWorkspace } from '../ui';

/** The apps of the workspace with their live status (read again every 5 s while the tab is visible). */
export function AppsList() {
  const { workspace, canWrite, base } = useWorkspace();
  const workspaceId = workspace.id;
  const apps = useLoad(() => unwrap(api.GET('/v1/workspaces/{workspaceId}/apps', { params: { path: { workspaceId } } })), [workspaceId], 5000);
  return (
    <section aria-labelledby="apps-title">
      <div className="row spread">
        <h1 id="apps-title">Apps</h1>
        {canWrite && (
          <Link className="button primary" href={`${base}/apps/new`}>
            New app
          </Link>
        )}
      </div>
      <ErrorText error={apps.error} />
      {!apps.data ? (
        <Loading what="apps" />
      ) : apps.data.data.length === 0 ? (
        <p>No apps yet.{canWrite ? ' Create one from an image, a .zip of your code or a GitHub repository.' : ''}</p>
      ) : (
        <table>
          <caption className="visually-hidden">Apps</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Status</th>
              <th scope="col">Source</th>
              <th scope="col">URL</th>
            </tr>
          </thead>
          <tbody>
            {apps.data.data.map((a) => (
              <tr key={a.id}>
                <td>
                  <Link href={`${base}/apps/${a.id}`}>{a.name}</Link>
                </td>
                <td>
                  <Status value={a.status} />
                </td>
                <td>{a.source === 'image' ? a.image : a.source}</td>
                <td>{a.url ? <a href={a.url}>{a.url}</a> : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
