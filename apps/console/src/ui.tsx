import { createContext, useContext, useId, useRef, useState, type ReactNode } from 'react';
import { Link } from 'wouter';
import { fieldErrors, messageOf, type Role, type Workspace } from './api';

/** The workspace of the page and what its role lets the user do (viewers get no write controls). */
export interface WorkspaceScope {
  workspace: Workspace;
  canWrite: boolean;
  isAdmin: boolean;
  base: string;
}
export const WorkspaceContext = createContext<WorkspaceScope | undefined>(undefined);
export function useWorkspace(): WorkspaceScope {
  const scope = useContext(WorkspaceContext);
  if (!scope) throw new Error('useWorkspace outside a workspace page');
  return scope;
}
export const canWriteAs = (role: Role) => role !== 'viewer';
export const isAdminAs = (role: Role) => role === 'owner' || role === 'admin';

export function ErrorText({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      {typeof error === 'string' ? error : messageOf(error)}
    </p>
  );
}

/** A labelled input with the API's error for that field beside it. */
export function Field(props: {
  label: string;
  name: string;
  error?: unknown;
  type?: string;
  value: string;
  onChange(v: string): void;
  required?: boolean;
  placeholder?: string;
  autoComplete?: string;
  hint?: string;
}) {
  const id = useId();
  const message = fieldErrors(props.error)[props.name];
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <input
        id={id}
        name={props.name}
        type={props.type ?? 'text'}
        value={props.value}
        required={props.required}
        placeholder={props.placeholder}
        autoComplete={props.autoComplete}
        aria-invalid={message ? true : undefined}
        aria-describedby={message ? `${id}-error` : props.hint ? `${id}-hint` : undefined}
        onChange={(e) => props.onChange(e.target.value)}
      />
      {props.hint && !message && (
        <small id={`${id}-hint`} className="hint">
          {props.hint}
        </small>
      )}
      {message && (
        <small id={`${id}-error`} className="error">
          {message}
        </small>
      )}
    </div>
  );
}

export function Select<T extends string>(props: { label: string; value: T; options: readonly (NoInfer<T> | { value: NoInfer<T>; label: string })[]; onChange(v: NoInfer<T>): void }) {
  const id = useId();
  const options = props.options.map((o) => (typeof o === 'string' ? { value: o, label: o } : o));
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <select id={id} value={props.value} onChange={(e) => props.onChange(e.target.value as T)}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/**
 * A destructive action: asks first, in a dialog that names what it destroys, and runs only when confirmed.
 */
export function ConfirmButton(props: { label: string; title: string; children: ReactNode; confirmLabel?: string; onConfirm(): Promise<unknown> | void; danger?: boolean }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  return (
    <>
      <button type="button" className={props.danger === false ? '' : 'danger'} onClick={() => dialog.current?.showModal()}>
        {props.label}
      </button>
      <dialog ref={dialog} aria-label={props.title}>
        <h2>{props.title}</h2>
        <div>{props.children}</div>
        <ErrorText error={error} />
        <div className="row">
          <button type="button" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button
            type="button"
            className={props.danger === false ? 'primary' : 'danger'}
            disabled={busy}
            onClick={async () => {
              setBusy(true);
              setError(undefined);
              try {
                await props.onConfirm();
                dialog.current?.close();
              } catch (e) {
                setError(e);
              } finally {
                setBusy(false);
              }
            }}
          >
            {props.confirmLabel ?? props.label}
          </button>
        </div>
      </dialog>
    </>
  );
}

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      aria-label={label}
      onClick={() =>
        void navigator.clipboard?.writeText(text).then(() => {
          setDone(true);
          setTimeout(() => setDone(false), 1500);
        })
      }
    >
      {done ? 'Copied' : 'Copy'}
    </button>
  );
}

export function Status({ value }: { value: string }) {
  return <span className={`status status-${value}`}>{value}</span>;
}

export function Tabs({ items }: { items: { href: string; label: string; active: boolean }[] }) {
  return (
    <nav className="tabs" aria-label="Sections">
      {items.map((t) => (
        <Link key={t.href} href={t.href} aria-current={t.active ? 'page' : undefined}>
          {t.label}
        </Link>
      ))}
    </nav>
  );
}

export function Loading({ what }: { what: string }) {
  return <p aria-busy="true">Loading {what}…</p>;
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');
