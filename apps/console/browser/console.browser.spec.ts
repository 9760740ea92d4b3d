// Focused cases of the web console (issue 28) against the API alone (startTestApi: no agent, a recording job queue):
// deep links and the back button, field errors beside their fields, destructive actions that ask first, and polling
// that stops in a background tab and never runs faster than once a second.
import { ApiClient, createWorkspace, signUp, type SignedUp } from '@slipway/testing';
import { startTestApi, type TestApi } from '@slipway/testing/api';
import { ensureConsoleBuilt, launchChromium, openTab, visible, type Browser, type ConsoleTab } from '@slipway/testing/browser';

/** The times of the page's requests to the API from now on. */
function apiReads(tab: ConsoleTab): number[] {
  const reads: number[] = [];
  tab.page.on('request', (r) => {
    if (new URL(r.url()).pathname.startsWith('/v1/')) reads.push(Date.now());
  });
  return reads;
}

/** A tab name from the test's name (kept in failure artifacts). */
const currentTest = (): string => expect.getState().currentTestName ?? 'case';

describe('the web console, focused cases', () => {
  let api: TestApi;
  let browser: Browser;
  let tab: ConsoleTab;
  let client: ApiClient;
  let me: SignedUp;
  let ws: { id: string; name: string };
  let app: { id: string; name: string };

  beforeAll(async () => {
    ensureConsoleBuilt();
    api = await startTestApi({ publicOrigin: 'self' });
    browser = await launchChromium();
    client = api.client();
    me = await signUp(client, { name: 'Grace' });
    ws = await createWorkspace(client, 'Focused');
    app = (await client.post(`/v1/workspaces/${ws.id}/apps`, { name: 'focus', kind: 'web', source: 'image', image: 'nginx:1', memoryMb: 128 })).body;
  });

  beforeEach(async () => {
    tab = await openTab(browser, api.base, currentTest());
  });

  afterEach(async () => {
    await tab?.close();
  });

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  const signIn = async () => {
    await tab.page.getByLabel('Email').fill(me.email);
    await tab.page.getByLabel('Password').fill(me.password);
    await tab.page.getByRole('button', { name: 'Sign in' }).click();
  };

  it('a deep link goes through sign-in to where it pointed, and back returns to it', async () => {
    await tab.step('deep-link', async () => {
      await tab.page.goto(`/w/${ws.id}/members`);
      await tab.page.waitForURL(/\/signin\?next=/);
      await signIn();
      await tab.page.waitForURL(new RegExp(`/w/${ws.id}/members$`));
      await visible(tab.page.getByRole('heading', { name: 'Members of Focused' }));
      await tab.page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Tokens' }).click();
      await visible(tab.page.getByRole('heading', { name: 'API tokens' }));
      await tab.axe('tokens');
      await tab.page.goBack();
      await visible(tab.page.getByRole('heading', { name: 'Members of Focused' }));
      await tab.page.reload();
      await visible(tab.page.getByRole('heading', { name: 'Members of Focused' }));
    });
  });

  it("shows the API's field error beside its field", async () => {
    await tab.step('field-error', async () => {
      await tab.page.goto('/signup');
      await tab.page.getByLabel('Name').fill('Short Password');
      await tab.page.getByLabel('Email').fill(`short-${Date.now()}@example.com`);
      await tab.page.getByLabel('Password').fill('short');
      await tab.page.getByRole('button', { name: 'Create account' }).click();
      const password = tab.page.getByLabel('Password');
      await visible(tab.page.locator('input[name=password][aria-invalid=true]'));
      const describedBy = await password.getAttribute('aria-describedby');
      expect(await tab.page.locator(`[id="${describedBy}"]`).textContent()).toMatch(/10/);
      await tab.axe('sign up with an error');
    });
  });

  it('a destructive action asks first and names what it destroys', async () => {
    await tab.step('confirm', async () => {
      await tab.page.goto(`/w/${ws.id}/apps/${app.id}`);
      await signIn();
      await visible(tab.page.getByRole('heading', { name: 'focus', exact: true }));
      await tab.page.getByRole('button', { name: 'Delete focus' }).click();
      const dialog = tab.page.getByRole('dialog', { name: 'Delete the app focus?' });
      await visible(dialog);
      expect(await dialog.textContent()).toContain('cannot be undone');
      await tab.axe('delete dialog');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      expect(await dialog.isVisible()).toBe(false);
      expect((await client.get(`/v1/workspaces/${ws.id}/apps/${app.id}`)).status).toBe(200);
    });
  });

  it('cancels a queued deployment from its log page, after asking', async () => {
    await tab.step('cancel', async () => {
      const d = (await client.post(`/v1/workspaces/${ws.id}/apps/${app.id}/deployments`, {})).body;
      await tab.page.goto(`/w/${ws.id}/apps/${app.id}/deployments/${d.id}`);
      await signIn();
      await visible(tab.page.getByRole('log', { name: 'Build and deploy log' }));
      await visible(tab.page.getByText(/following…/));
      await tab.page.getByRole('button', { name: `Cancel #${d.number}` }).click();
      await tab.axe('cancel dialog');
      await tab.page.getByRole('dialog').getByRole('button', { name: 'Cancel deployment' }).click();
      await visible(tab.page.getByRole('heading', { name: `Deployment #${d.number}` }).getByText('cancelled'));
      await visible(tab.page.getByText(/lines, finished/));
      expect((await client.get(`/v1/workspaces/${ws.id}/apps/${app.id}/deployments/${d.id}`)).body.status).toBe('cancelled');
    });
  });

  it('reads at most once a second, and nothing while the tab is hidden', async () => {
    await tab.step('polling', async () => {
      await tab.page.goto(`/w/${ws.id}/apps/${app.id}`);
      await signIn();
      await visible(tab.page.getByRole('heading', { name: 'focus', exact: true }));
      const reads = apiReads(tab);
      await tab.page.waitForTimeout(6_000);
      expect(reads.length).toBeGreaterThan(0);
      expect(reads.length).toBeLessThanOrEqual(6);
      await tab.page.evaluate(`Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
        document.dispatchEvent(new Event('visibilitychange'))`);
      const hiddenAt = Date.now();
      await tab.page.waitForTimeout(8_000);
      expect(reads.filter((t) => t > hiddenAt)).toEqual([]);
      await tab.page.evaluate(`Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' });
        document.dispatchEvent(new Event('visibilitychange'))`);
      await tab.page.waitForTimeout(4_000);
      expect(reads.filter((t) => t > hiddenAt + 8_000).length).toBeGreaterThan(0);
    });
  });
});
