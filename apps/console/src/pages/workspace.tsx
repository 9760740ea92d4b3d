import { useState } from 'react';
import { useLocation } from 'wouter';
import { api, unwrap, type Role } from '../api';
import { useAction, useLoad } from '../hooks';
import { ConfirmButton, CopyButton, ErrorText, Field, Loading, Select, useWorkspace, when } from '../ui';

const ROLES: readonly Role[] = ['owner', 'admin', 'developer', 'viewer'];

export function NewWorkspace() {
  const [name, setName] = useState('');
  const action = useAction();
  const [, navigate] = useLocation();
  return (
    <form
      aria-labelledby="new-ws"
      onSubmit={async (e) => {
        e.preventDefault();
        await action.run(async () => {
          const ws = await unwrap(api.POST('/v1/workspaces', { body: { name } }));
          // A full load: the switcher lists the new workspace.
          navigate(`/w/${ws.id}/apps`);
          window.location.reload();
        });
      }}
    >
      <h1 id="new-ws">Create a workspace</h1>
      <p>A workspace holds apps, databases and the people who work on them.</p>
      <Field label="Workspace name" name="name" value={name} onChange={setName} error={action.error} required />
      <ErrorText error={action.error} />
      <button className="primary" disabled={action.busy}>
        Create workspace
      </button>
    </form>
  );
}

export function Members() {
  const { workspace, isAdmin } = useWorkspace();
  const workspaceId = workspace.id;
  const list = useLoad(() => unwrap(api.GET('/v1/workspaces/{workspaceId}/members', { params: { path: { workspaceId } } })), [workspaceId]);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('developer');
  const invite = useAction();
  const change = useAction();
  return (
    <section aria-labelledby="members-title">
      <h1 id="members-title">Members of {workspace.name}</h1>
      <ErrorText error={list.error ?? change.error} />
      {!list.data ? (
        <Loading what="members" />
      ) : (
        <table>
          <caption className="visually-hidden">Members</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              {isAdmin && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {list.data.data.map((m) => (
              <tr key={m.userId}>
                <td>{m.name}</td>
                <td>{m.email}</td>
                <td>
                  {isAdmin ? (
                    <select
                      aria-label={`Role of ${m.email}`}
                      value={m.role}
                      onChange={(e) =>
                        void change
                          .run(() =>
                            unwrap(api.PATCH('/v1/workspaces/{workspaceId}/members/{userId}', { params: { path: { workspaceId, userId: m.userId } }, body: { role: e.target.value as Role } })),
                          )
                          .then(list.reload)
                      }
                    >
                      {ROLES.map((r) => (
                        <option key={r}>{r}</option>
                      ))}
                    </select>
                  ) : (
                    m.role
                  )}
                </td>
                {isAdmin && (
                  <td>
                    <ConfirmButton
                      label={`Remove ${m.email}`}
                      title={`Remove ${m.name} from ${workspace.name}?`}
                      confirmLabel="Remove"
                      onConfirm={async () => {
                        await unwrap(api.DELETE('/v1/workspaces/{workspaceId}/members/{userId}', { params: { path: { workspaceId, userId: m.userId } } }));
                        list.reload();
                      }}
                    >
                      {m.email} loses access to every app and database of this workspace.
                    </ConfirmButton>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {isAdmin && (
        <form
          aria-labelledby="invite-title"
          onSubmit={async (e) => {
            e.preventDefault();
            if (await invite.run(() => unwrap(api.POST('/v1/workspaces/{workspaceId}/members', { params: { path: { workspaceId } }, body: { email, role } })))) {
              setEmail('');
              list.reload();
            }
          }}
        >
          <h2 id="invite-title">Invite a member</h2>
          <p>They must have a Slipway account with this email.</p>
          <Field label="Email" name="email" type="email" value={email} onChange={setEmail} error={invite.error} required />
          <Select label="Role" value={role} options={ROLES} onChange={setRole} />
          <ErrorText error={invite.error} />
          <button className="primary" disabled={invite.busy}>
            Invite
          </button>
        </form>
      )}
    </section>
  );
}

export function Tokens() {
  const { workspace, canWrite } = useWorkspace();
  const workspaceId = workspace.id;
  const list = useLoad(() => unwrap(api.GET('/v1/workspaces/{workspaceId}/tokens', { params: { path: { workspaceId } } })), [workspaceId]);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<string>();
  const create = useAction();
  return (
    <section aria-labelledby="tokens-title">
      <h1 id="tokens-title">API tokens</h1>
      <p>A token acts for this workspace with your role, from scripts and the CLI.</p>
      <ErrorText error={list.error} />
      {created && (
        <div className="notice" role="status">
          <p>Your new token. Copy it now: it is shown only once.</p>
          <code>{created}</code> <CopyButton text={created} label="Copy the new token" />
        </div>
      )}
      {list.data ? (
        <table>
          <caption className="visually-hidden">Tokens</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Created by</th>
              <th scope="col">Expires</th>
              <th scope="col">Last used</th>
              {canWrite && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {list.data.data.map((t) => (
              <tr key={t.id}>
                <td>{t.name}</td>
                <td>
                  <code>{t.prefix}…</code>
                </td>
                <td>{t.createdBy.name}</td>
                <td>{when(t.expiresAt)}</td>
                <td>{when(t.lastUsedAt)}</td>
                {canWrite && (
                  <td>
                    <ConfirmButton
                      label={`Revoke ${t.name}`}
                      title={`Revoke the token ${t.name}?`}
                      confirmLabel="Revoke"
                      onConfirm={async () => {
                        await unwrap(api.DELETE('/v1/workspaces/{workspaceId}/tokens/{tokenId}', { params: { path: { workspaceId, tokenId: t.id } } }));
                        list.reload();
                      }}
                    >
                      Scripts using {t.prefix}… stop working at once.
                    </ConfirmButton>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <Loading what="tokens" />
      )}
      {canWrite && (
        <form
          aria-labelledby="new-token"
          onSubmit={async (e) => {
            e.preventDefault();
            await create.run(async () => {
              const t = await unwrap(api.POST('/v1/workspaces/{workspaceId}/tokens', { params: { path: { workspaceId } }, body: { name } }));
              setCreated(t.token);
              setName('');
              list.reload();
            });
          }}
        >
          <h2 id="new-token">New token</h2>
          <Field label="Token name" name="name" value={name} onChange={setName} error={create.error} required />
          <ErrorText error={create.error} />
          <button className="primary" disabled={create.busy}>
            Create token
          </button>
        </form>
      )}
    </section>
  );
}

function Meter({ label, used, limit, unit }: { label: string; used: number; limit: number | null; unit: string }) {
  return (
    <div className="meter">
      <span>
        {label}: {used} {unit} of {limit ?? 'unlimited'} {limit !== null ? unit : ''}
      </span>
      {limit !== null && <progress aria-label={label} max={limit} value={Math.min(used, limit)} />}
    </div>
  );
}

export function Plan() {
  const { workspace } = useWorkspace();
  const workspaceId = workspace.id;
  const plan = useLoad(() => unwrap(api.GET('/v1/workspaces/{workspaceId}/plan', { params: { path: { workspaceId } } })), [workspaceId], 30_000);
  const p = plan.data;
  return (
    <section aria-labelledby="plan-title">
      <h1 id="plan-title">Plan and usage</h1>
      <ErrorText error={plan.error} />
      {!p ? (
        <Loading what="the plan" />
      ) : (
        <>
          <p>
            Plan <strong>{p.plan.name}</strong> ({p.plan.kind}), {p.status}
            {p.plan.kind === 'trial' ? `; the trial ends ${when(p.trialEndsAt)}` : ''}.
          </p>
          {p.overQuota && <p className="error">This workspace uses more than its plan allows: resize or remove something before creating more.</p>}
          <Meter label="vCPU" used={p.usage.cpuMillis / 1000} limit={p.limits.cpuMillis / 1000} unit="vCPU" />
          <Meter label="Memory" used={p.usage.memoryMb} limit={p.limits.memoryMb} unit="MB" />
          <Meter label="Disk" used={p.usage.diskMb} limit={p.limits.diskMb} unit="MB" />
          <Meter label="Members" used={p.usage.members} limit={p.limits.maxMembers} unit="" />
        </>
      )}
    </section>
  );
}
