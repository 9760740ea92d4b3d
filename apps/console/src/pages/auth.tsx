import { useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { api, unwrap } from '../api';
import { useAction } from '../hooks';
import { ErrorText, Field } from '../ui';

function useNext(): string {
  const next = new URLSearchParams(useSearch()).get('next');
  // Only a path of this console: never a link elsewhere.
  return next && next.startsWith('/') && !next.startsWith('//') ? next : '/';
}

export function SignIn({ onDone }: { onDone(): void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();
  const next = useNext();
  const [, navigate] = useLocation();
  return (
    <form
      aria-labelledby="signin-title"
      onSubmit={async (e) => {
        e.preventDefault();
        if (await action.run(() => unwrap(api.POST('/v1/auth/login', { body: { email, password } })))) {
          navigate(next);
          onDone();
        }
      }}
    >
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

export function SignUp({ onDone }: { onDone(): void }) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();
  const next = useNext();
  const [, navigate] = useLocation();
  return (
    <form
      aria-labelledby="signup-title"
      onSubmit={async (e) => {
        e.preventDefault();
        if (await action.run(() => unwrap(api.POST('/v1/auth/signup', { body: { name, email, password } })))) {
          navigate(next);
          onDone();
        }
      }}
    >
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
