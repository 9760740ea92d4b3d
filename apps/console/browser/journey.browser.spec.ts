// The web console as a user goes through it (issue 28), in Debian's Chromium against the real platform (API, workers,
// agent, Docker, Caddy): sign up → workspace → image app → its build log follows → the app's URL serves → set a
// variable → redeploy → rollback → a .zip dropped on the page builds and serves → metrics chart has points → upload and
// download a project file → a PostgreSQL database created, connected to the app, backed up, restored into a new one →
// a domain added shows its records → a member invited as viewer sees no write controls. axe-core on every screen.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { ensureConsoleBuilt, launchChromium, openTab, visible, type Browser, type ConsoleTab } from '@slipway/testing/browser';
import { startTestPlatform, type TestPlatform } from '@slipway/testing/platform';
import { staticSample, zipOf } from '@slipway/testing/samples';
import { waitFor } from '@slipway/testing/worker';

jest.setTimeout(15 * 60_000);

describe('the web console, one user journey', () => {
  let p: TestPlatform;
  let browser: Browser;
  let owner: ConsoleTab;
  const id = randomBytes(3).toString('hex');
  const email = `owner-${id}@example.com`;
  const state: { ws?: string; appPath?: string; appUrl?: string; appName: string } = { appName: `web ${id}` };

  beforeAll(async () => {
    ensureConsoleBuilt();
    p = await startTestPlatform({
      name: 'console',
      publicOrigin: 'self',
      readyTimeoutMs: 20_000,
      stopGraceMs: 2_000,
      build: { extraCaBundle: '/etc/ssl/certs/ca-certificates.crt' },
      metrics: { intervalMs: 1_000, folderIntervalMs: 2_000 },
    });
    browser = await launchChromium();
    owner = await openTab(browser, p.base, 'owner');
  });

  afterAll(async () => {
    await browser?.close();
    await p?.close();
  });

  const page = () => owner.page;
  /** Waits for the followed log of the deployment on screen to finish, and for it to be live. */
  const deploymentGoesLive = async () => {
    await visible(page().getByText(/lines, finished/), 240_000);
    await visible(page().getByRole('heading', { name: /Deployment #\d+/ }).getByText('live'), 30_000);
  };
  const tab = (name: string) => page().getByRole('navigation', { name: 'Sections' }).getByRole('link', { name, exact: true }).click();

  it('signs up and creates a workspace', async () => {
    await owner.step('signup', async () => {
      await page().goto('/');
      await page().waitForURL(/\/signin/);
      await owner.axe('sign in');
      await page().getByRole('link', { name: 'Create an account' }).click();
      await owner.axe('sign up');
      await page().getByLabel('Name').fill('Ada Owner');
      await page().getByLabel('Email').fill(email);
      await page().getByLabel('Password').fill('correct horse battery');
      await page().getByRole('button', { name: 'Create account' }).click();
      await page().waitForURL(/\/workspaces\/new$/);
      await owner.axe('new workspace');
      await page().getByLabel('Workspace name').fill(`Team ${id}`);
      await page().getByRole('button', { name: 'Create workspace' }).click();
      await page().waitForURL(/\/w\/[0-9a-f-]+\/apps$/);
      await visible(page().getByRole('heading', { name: 'Apps' }));
      state.ws = /\/w\/([0-9a-f-]+)\//.exec(page().url())![1];
      await owner.axe('apps list');
    });
  });

  it('creates an image app, follows its build log, and its URL serves', async () => {
    await owner.step('image-app', async () => {
      await page().getByRole('link', { name: 'New app' }).click();
      await owner.axe('new app');
      await page().getByLabel('App name').fill(state.appName);
      await page().getByLabel('Image').fill(p.images.v1);
      await page().getByRole('button', { name: 'Create and deploy' }).click();
      await visible(page().getByRole('heading', { name: state.appName }));
      state.appPath = new URL(page().url()).pathname;
      await owner.axe('app overview');
      await tab('Deployments');
      await page().getByRole('link', { name: '#1' }).click();
      await deploymentGoesLive();
      expect(Number(await page().getByRole('log', { name: 'Build and deploy log' }).getAttribute('data-lines'))).toBeGreaterThan(0);
      await owner.axe('deployment log');
      state.appUrl = (await page().locator('p a[target=_blank]').first().getAttribute('href'))!;
      expect((await p.viaIngress(state.appUrl)).body).toBe('v1\n');
    });
  });

  it('sets a variable, redeploys, and rolls back', async () => {
    await owner.step('variable-redeploy-rollback', async () => {
      await tab('Variables');
      await page().getByRole('button', { name: 'Add variable' }).click();
      await page().getByLabel('Name 1').fill('GREETING');
      await page().getByLabel('Value of GREETING').fill('hello from the console');
      await page().getByRole('button', { name: 'Save variables' }).click();
      await visible(page().getByRole('status').filter({ hasText: 'Saved' }));
      await owner.axe('variables');

      await tab('Deployments');
      await page().getByRole('button', { name: 'Redeploy' }).click();
      await deploymentGoesLive();
      expect((await p.viaIngress(state.appUrl!, '/env/GREETING')).body).toBe('hello from the console');

      await tab('Deployments');
      await owner.axe('deployments');
      await page().getByRole('button', { name: 'Roll back to #1' }).click();
      await owner.axe('rollback dialog');
      await page().getByRole('dialog').getByRole('button', { name: 'Roll back' }).click();
      await deploymentGoesLive();
      await tab('Deployments');
      await visible(page().getByRole('row', { name: /#3 live rollback/ }));
      // The README's picture of the app page, once the page has seen the app running again.
      await visible(page().locator('.row.spread .status', { hasText: /^running$/ }), 30_000);
      await owner.keep('app-page');
    });
  });

  it('builds and serves a .zip dropped on the page', async () => {
    await owner.step('zip', async () => {
      await page().goto(`/w/${state.ws}/apps/new`);
      await page().getByLabel('Deploy from').selectOption('upload');
      await page().getByLabel('App name').fill(`site ${id}`);
      const zip = zipOf(staticSample('from a drop'));
      // A DataTransfer holding the .zip, made in the page (a real drop carries one).
      const transfer = await page().evaluateHandle(`(() => {
        const bytes = Uint8Array.from(atob('${zip.toString('base64')}'), (c) => c.charCodeAt(0));
        const dt = new DataTransfer();
        dt.items.add(new File([bytes], 'site.zip', { type: 'application/zip' }));
        return dt;
      })()`);
      await page().getByTestId('zip-drop').dispatchEvent('drop', { dataTransfer: transfer });
      await visible(page().getByText('site.zip'));
      await owner.axe('new app (.zip)');
      await page().getByRole('button', { name: 'Create and deploy' }).click();
      await deploymentGoesLive();
      const url = (await page().locator('p a[target=_blank]').first().getAttribute('href'))!;
      expect((await p.viaIngress(url)).body).toBe('static from a drop\n');
    });
  });

  it('shows metrics with points, and uploads and downloads a project file', async () => {
    await owner.step('metrics-files', async () => {
      await page().goto(`${state.appPath}/metrics`);
      await waitFor(
        async () => {
          await p.agent.agent.metrics.sampleNow();
          await p.worker.services.metrics.collectAll();
          await page().reload();
          const points = await page().locator('figure.chart').first().getAttribute('data-points', { timeout: 10_000 });
          return Number(points) > 0;
        },
        150_000,
        'the CPU chart to have points',
      );
      await owner.axe('metrics');

      await tab('Logs');
      await visible(page().getByRole('log', { name: 'Runtime log' }).getByText(/listening on/));
      await owner.axe('runtime logs');

      await tab('Files');
      await owner.axe('files');
      await page().getByLabel('Upload a file to /').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('kept in the project folder\n') });
      await visible(page().getByRole('cell', { name: 'notes.txt', exact: true }));
      const [download] = await Promise.all([page().waitForEvent('download'), page().getByRole('link', { name: 'Download notes.txt' }).click()]);
      expect(await readFile((await download.path())!, 'utf8')).toBe('kept in the project folder\n');
    });
  });

  it('creates a PostgreSQL database, connects it to the app, backs it up and restores it into a new one', async () => {
    await owner.step('database', async () => {
      await page().getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Databases' }).click();
      await owner.axe('databases');
      await page().getByLabel('Database name').fill(`main ${id}`);
      await page().getByRole('button', { name: 'Create database' }).click();
      await visible(page().getByRole('heading', { name: `main ${id}` }));
      await visible(page().locator('.row.spread .status', { hasText: /^running$/ }), 180_000);
      await owner.axe('database');
      await page().getByLabel('App', { exact: true }).selectOption({ label: state.appName });
      await page().getByRole('button', { name: 'Connect', exact: true }).click();
      await visible(page().getByRole('status').filter({ hasText: 'DATABASE_URL is set' }));
      await page().getByRole('button', { name: 'Back up now' }).click();
      await visible(page().getByRole('row', { name: /manual completed/ }), 180_000);
      // One manual backup an hour: the second is refused with the time it is allowed again.
      await page().getByRole('button', { name: 'Back up now' }).click();
      await visible(page().getByRole('alert').filter({ hasText: /the next is allowed at/ }));
      await page().getByRole('button', { name: /^Restore into a new database/ }).click();
      await owner.axe('restore dialog');
      await page().getByRole('dialog').getByRole('button', { name: 'Restore into a new database' }).click();
      await visible(page().getByRole('heading', { name: `main ${id}`, exact: false }));
      await visible(page().locator('.row.spread .status', { hasText: /^running$/ }), 180_000);
      expect(new URL(page().url()).pathname).toMatch(/\/databases\/[0-9a-f-]+$/);
    });
  });

  it('adds a domain and shows the DNS records to create', async () => {
    await owner.step('domain', async () => {
      await page().goto(`${state.appPath}/domains`);
      await page().getByRole('textbox', { name: 'Domain' }).fill(`www-${id}.example.com`);
      await page().getByRole('button', { name: 'Add domain' }).click();
      const card = page().getByRole('article', { name: `www-${id}.example.com` });
      await visible(card.getByRole('row', { name: /^TXT/ }));
      await visible(card.getByRole('row', { name: /^(A|CNAME) / }).first());
      await owner.axe('domains');
    });
  });

  it('creates a token shown once, and shows the plan and usage', async () => {
    await owner.step('tokens-plan', async () => {
      await page().getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Tokens' }).click();
      await page().getByLabel('Token name').fill('ci');
      await page().getByRole('button', { name: 'Create token' }).click();
      await visible(page().getByRole('status').filter({ hasText: 'shown only once' }));
      const token = await page().locator('.notice code').textContent();
      expect(token).toMatch(/^svc_/);
      await visible(page().getByRole('cell', { name: 'ci', exact: true }));
      await owner.axe('tokens');
      await page().getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Plan and usage' }).click();
      await visible(page().getByRole('progressbar', { name: 'Memory' }));
      await owner.axe('plan and usage');
    });
  });

  it('a member invited as viewer sees no write controls', async () => {
    const viewer = await openTab(browser, p.base, 'viewer');
    const viewerEmail = `viewer-${id}@example.com`;
    try {
      await viewer.step('viewer-signup', async () => {
        await viewer.page.goto('/signup');
        await viewer.page.getByLabel('Name').fill('Vic Viewer');
        await viewer.page.getByLabel('Email').fill(viewerEmail);
        await viewer.page.getByLabel('Password').fill('correct horse battery');
        await viewer.page.getByRole('button', { name: 'Create account' }).click();
        await viewer.page.waitForURL(/\/workspaces\/new$/);
      });
      await owner.step('invite', async () => {
        await page().goto(`/w/${state.ws}/members`);
        await page().getByLabel('Email').fill(viewerEmail);
        await page().getByLabel('Role', { exact: true }).selectOption('viewer');
        await page().getByRole('button', { name: 'Invite' }).click();
        await visible(page().getByRole('cell', { name: viewerEmail }));
        await owner.axe('members');
      });
      await viewer.step('viewer-sees', async () => {
        const v = viewer.page;
        await v.goto(state.appPath!);
        await visible(v.getByRole('heading', { name: state.appName }));
        await viewer.axe('app overview (viewer)');
        expect(await v.getByRole('button', { name: 'Restart' }).count()).toBe(0);
        expect(await v.getByRole('button', { name: 'Save settings' }).count()).toBe(0);
        expect(await v.getByRole('button', { name: /^Delete/ }).count()).toBe(0);
        await v.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Deployments' }).click();
        await visible(v.getByRole('row', { name: /#1/ }));
        expect(await v.getByRole('button', { name: 'Redeploy' }).count()).toBe(0);
        expect(await v.getByRole('button', { name: /Roll back/ }).count()).toBe(0);
        await v.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Variables' }).click();
        await visible(v.getByRole('cell', { name: 'GREETING' }));
        expect(await v.getByRole('button', { name: 'Save variables' }).count()).toBe(0);
        await viewer.axe('variables (viewer)');
        await v.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Files' }).click();
        await visible(v.getByRole('cell', { name: 'notes.txt', exact: true }));
        expect(await v.getByLabel(/^Upload a file/).count()).toBe(0);
        expect(await v.getByRole('link', { name: 'Download notes.txt' }).count()).toBe(0);
        expect(await v.getByRole('button', { name: /^(Rename|Delete) / }).count()).toBe(0);
        await v.goto(`/w/${state.ws}/apps`);
        expect(await v.getByRole('link', { name: 'New app' }).count()).toBe(0);
      });
    } finally {
      await viewer.close();
    }
  });
});
