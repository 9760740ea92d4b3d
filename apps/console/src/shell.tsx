import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { Link, Redirect, Route, Switch, useLocation, useParams } from 'wouter';
import { api, unwrap, type Schemas } from './api';
import { useLoad } from './hooks';
import { safeNext, SignIn, SignUp } from './pages/auth';
import { AppsList } from './pages/apps';
import { NewWorkspace, Members, Tokens, Plan } from './pages/workspace';
import { canWriteAs, ErrorText, isAdminAs, Loading, WorkspaceContext } from './ui';

// The heavier screens load on demand: the first load carries only the shell, the forms and the apps list.
const AppPage = lazy(() => import('./pages/app').then((m) => ({ default: m.AppPage })));
const NewApp = lazy(() => import('./pages/new-app').then((m) => ({ default: m.NewApp })));
const Databases = lazy(() => import('./pages/databases').then((m) => ({ default: m.Databases })));
const DatabasePage = lazy(() => import('./pages/databases').then((m) => ({ default: m.DatabasePage })));

export function Shell() {
  const [location, navigate] = useLocation();
  const [user, setUser] = useState<Schemas['User'] | null>();
  useEffect(() => {
    api.GET('/v1/auth/me').then(({ data }) => setUser(data?.user ?? null), () => setUser(null));
  }, []);
  const signedIn = (u: Schemas['User']) => setUser(u);
  if (user === undefined) return <Loading what="your account" />;
  if (location === '/signin' || location === '/signup') {
    if (user) return <Redirect to={safeNext(window.location.search)} />;
    return (
      <main id="main" className="narrow">
        {location === '/signin' ? <SignIn onDone={signedIn} /> : <SignUp onDone={signedIn} />}
      </main>
    );
  }
  if (!user) return <Redirect to={`/signin?next=${encodeURIComponent(location)}`} />;
  const signOut = async () => {
    await api.POST('/v1/auth/logout');
    setUser(null);
    navigate('/signin');
  };
  return (
    <Switch>
      <Route path="/">
        <FirstWorkspace />
      </Route>
      <Route path="/workspaces/new">
        <Frame user={user} onSignOut={signOut}>
          <NewWorkspace />
        </Frame>
      </Route>
      <Route path="/w/:ws/*?">
        <WorkspaceArea user={user} onSignOut={signOut} />
      </Route>
      <Route>
        <main id="main">
          <h1>Not found</h1>
          <p>
            Nothing is at this address. <Link href="/">Go to your workspaces</Link>.
          </p>
        </main>
      </Route>
    </Switch>
  );
}

function FirstWorkspace() {
  const list = useLoad(() => unwrap(api.GET('/v1/workspaces')), []);
  if (list.error) return <ErrorText error={list.error} />;
  if (!list.data) return <Loading what="workspaces" />;
  const first = list.data.data[0];
  return <Redirect to={first ? `/w/${first.id}/apps` : '/workspaces/new'} />;
}

function Frame(props: { user: Schemas['User']; onSignOut(): void; workspaceId?: string; children: React.ReactNode }) {
  const [, navigate] = useLocation();
  const list = useLoad(() => unwrap(api.GET('/v1/workspaces')), []);
  const base = props.workspaceId ? `/w/${props.workspaceId}` : undefined;
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <Link href="/" className="brand">
          Slipway
        </Link>
        {list.data && (
          <label className="switcher">
            <span className="visually-hidden">Workspace</span>
            <select
              aria-label="Workspace"
              value={props.workspaceId ?? ''}
              onChange={(e) => navigate(e.target.value === 'new' ? '/workspaces/new' : `/w/${e.target.value}/apps`)}
            >
              {!props.workspaceId && <option value="">Choose a workspace</option>}
              {list.data.data.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name}
                </option>
              ))}
              <option value="new">+ New workspace</option>
            </select>
          </label>
        )}
        {base && (
          <nav aria-label="Workspace">
            <Link href={`${base}/apps`}>Apps</Link>
            <Link href={`${base}/databases`}>Databases</Link>
            <Link href={`${base}/members`}>Members</Link>
            <Link href={`${base}/tokens`}>Tokens</Link>
            <Link href={`${base}/plan`}>Plan and usage</Link>
          </nav>
        )}
        <span className="user">{props.user.name}</span>
        <button type="button" onClick={props.onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main">{props.children}</main>
    </>
  );
}

function WorkspaceArea(props: { user: Schemas['User']; onSignOut(): void }) {
  const { ws } = useParams<{ ws: string }>();
  const found = useLoad(() => unwrap(api.GET('/v1/workspaces/{workspaceId}', { params: { path: { workspaceId: ws } } })), [ws]);
  const scope = useMemo(
    () =>
      found.data && {
        workspace: found.data,
        canWrite: canWriteAs(found.data.role),
        isAdmin: isAdminAs(found.data.role),
        base: `/w/${ws}`,
      },
    [found.data, ws],
  );
  return (
    <Frame user={props.user} onSignOut={props.onSignOut} workspaceId={ws}>
      {found.error && <ErrorText error={found.error} />}
      {!scope && !found.error && <Loading what="the workspace" />}
      {scope && (
        <WorkspaceContext.Provider value={scope}>
          <Suspense fallback={<Loading what="the page" />}>
            <Switch>
              <Route path="/w/:ws/apps" component={AppsList} />
              <Route path="/w/:ws/apps/new" component={NewApp} />
              <Route path="/w/:ws/apps/:appId/*?" component={AppPage} />
              <Route path="/w/:ws/databases" component={Databases} />
              <Route path="/w/:ws/databases/:dbId" component={DatabasePage} />
              <Route path="/w/:ws/members" component={Members} />
              <Route path="/w/:ws/tokens" component={Tokens} />
              <Route path="/w/:ws/plan" component={Plan} />
              <Route>
                <Redirect to={`/w/${ws}/apps`} />
              </Route>
            </Switch>
          </Suspense>
        </WorkspaceContext.Provider>
      )}
    </Frame>
  );
}
