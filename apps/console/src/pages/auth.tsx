import { useState, type FormEvent } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { api, unwrap, type Schemas } from '../api';
import { useAction } from '../hooks';
import { ErrorText, Field } from '../ui';

/** Where `?next=` points, when it is a path of this console (never a link elsewhere); `/` otherwise. */
export function safeNext(search: string): string {
  const next = new URLSearchParams(search).get('next');
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/';
}

/** Submits a sign-in or sign-up; on success the shell learns the user and the page goes where `?next=` pointed. */
function useAuthSubmit(onDone: (user: Schemas['User']) => void, call: () => Promise<{ user: Schemas['User'] }>) {
  const action = useAction();
  const next = safeNext(useSearch());
  const [, navigate] = useLocation();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    await action.run(async () => {
      const { user } = await call();
      // Both in one render: the user is known when the page it pointed to draws.
      onDone(user);
      navigate(next);
    });
  };
  return { action, next, submit };
}

export function SignIn({ onDone }: { onDone(user: Schemas['User']): void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { action, next, submit } = useAuthSubmit(onDone, () => unwrap(api.POST('/v1/auth/login', { body: { email, password } })));
  return (
    <form aria-labelledby="signin-title" onSubmit={submit}>
      <h1 id="signin-title">Sign in to Slipway</h1>
      <Field label="Email" name="email" type="email" autoComplete="username" value={email} onChange={setEmail} error={action.error} required />
      <Field label="Password" name="password" type="password" autoComplete="current-password" value={password} onChange={setPassword} error={action.error} required />
      <ErrorText error={action.error} />
      <button className="primary" disabled={action.busy}>
        Sign in
      </button>
      <p>
        New here? <Link href={`/signup${next !== '/' ? `?next=${encodeURIComponent(next)}` : ''}`}>Create an account</Link>
      </p>
    </form>
  );
}

export function SignUp({ onDone }: { onDone(user: Schemas['User']): void }) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { action, submit } = useAuthSubmit(onDone, () => unwrap(api.POST('/v1/auth/signup', { body: { name, email, password } })));
  return (
    <form aria-labelledby="signup-title" onSubmit={submit}>
      <h1 id="signup-title">Create your Slipway account</h1>
      <Field label="Name" name="name" autoComplete="name" value={name} onChange={setName} error={action.error} required />
      <Field label="Email" name="email" type="email" autoComplete="username" value={email} onChange={setEmail} error={action.error} required />
      <Field label="Password" name="password" type="password" autoComplete="new-password" value={password} onChange={setPassword} error={action.error} required hint="At least 10 characters" />
      <ErrorText error={action.error} />
      <button className="primary" disabled={action.busy}>
        Create account
      </button>
      <p>
        Already have an account? <Link href="/signin">Sign in</Link>
      </p>
    </form>
  );
}
