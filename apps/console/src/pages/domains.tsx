import { useState } from 'react';
import { api, unwrap, type App } from '../api';
import { useAction, useLoad } from '../hooks';
import { ConfirmButton, CopyButton, ErrorText, Field, Loading, Status, useWorkspace, when } from '../ui';

function Record({ type, name, value }: { type: string; name: string; value: string }) {
  return (
    <tr>
      <td>{type}</td>
      <td>
        <code>{name}</code> <CopyButton text={name} label={`Copy the ${type} record name ${name}`} />
      </td>
      <td>
        <code>{value}</code> <CopyButton text={value} label={`Copy the ${type} record value ${value}`} />
      </td>
    </tr>
  );
}

export function Domains({ app }: { app: App }) {
  const { workspace, canWrite } = useWorkspace();
  const path = { workspaceId: workspace.id, appId: app.id };
  const list = useLoad(() => unwrap(api.GET('/v1/workspaces/{workspaceId}/apps/{appId}/domains', { params: { path } })), [app.id], 10_000);
  const [hostname, setHostname] = useState('');
  const add = useAction();
  const act = useAction();
  return (
    <div>
      <h2>Custom domains</h2>
      <ErrorText error={list.error ?? act.error} />
      {canWrite && (
        <form
          aria-label="Add a domain"
          onSubmit={async (e) => {
            e.preventDefault();
            if (await add.run(() => unwrap(api.POST('/v1/workspaces/{workspaceId}/apps/{appId}/domains', { params: { path }, body: { hostname } })))) {
              setHostname('');
              list.reload();
            }
          }}
        >
          <Field label="Domain" name="hostname" value={hostname} onChange={setHostname} error={add.error} placeholder="www.example.com" required />
          <ErrorText error={add.error} />
          <button className="primary" disabled={add.busy}>
            Add domain
          </button>
        </form>
      )}
      {!list.data ? (
        <Loading what="domains" />
      ) : (
        list.data.data.map((d) => (
          <article key={d.id} className="card" aria-label={d.hostnameUnicode}>
            <h3>
              {d.hostnameUnicode} <Status value={d.status} />
            </h3>
            <p>Create these DNS records at your DNS provider:</p>
            <table>
              <caption className="visually-hidden">DNS records for {d.hostname}</caption>
              <thead>
                <tr>
                  <th scope="col">Type</th>
                  <th scope="col">Name</th>
                  <th scope="col">Value</th>
                </tr>
              </thead>
              <tbody>
                {d.dns.cname && <Record type="CNAME" name={d.hostname} value={d.dns.cname} />}
                {!d.dns.cname && d.dns.a.map((v) => <Record key={v} type="A" name={d.hostname} value={v} />)}
                {!d.dns.cname && d.dns.aaaa.map((v) => <Record key={v} type="AAAA" name={d.hostname} value={v} />)}
                <Record type="TXT" name={d.dns.txtName} value={d.dns.txtValue} />
              </tbody>
            </table>
            {d.check?.error && <p className="error">Last check ({when(d.check.at)}): {d.check.error}</p>}
            <p>
              Certificate: {d.certificate.status}
              {d.certificate.notAfter ? `, valid until ${when(d.certificate.notAfter)}` : ''}
              {d.certificate.error ? ` — ${d.certificate.error}` : ''}
            </p>
            {canWrite && (
              <div className="row">
                <button type="button" onClick={() => void act.run(() => unwrap(api.POST('/v1/workspaces/{workspaceId}/apps/{appId}/domains/{domainId}/verify', { params: { path: { ...path, domainId: d.id } } }))).then(list.reload)}>
                  Verify {d.hostname} now
                </button>
                <ConfirmButton
                  label={`Remove ${d.hostname}`}
                  title={`Remove ${d.hostname}?`}
                  confirmLabel="Remove domain"
                  onConfirm={async () => {
                    await unwrap(api.DELETE('/v1/workspaces/{workspaceId}/apps/{appId}/domains/{domainId}', { params: { path: { ...path, domainId: d.id } } }));
                    list.reload();
                  }}
                >
                  {d.hostname} stops routing to {app.name} and its certificate is no longer renewed.
                </ConfirmButton>
              </div>
            )}
          </article>
        ))
      )}
    </div>
  );
}
