// Browser tests of the web console (issue 28): Debian's Chromium driven by playwright-core (Playwright's own browser
// download is not reachable), axe-core on every screen, and on failure a screenshot and the page's console output kept
// in BROWSER_ARTIFACTS (printed in the failure, so CI output names the folder).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';

export const CHROMIUM = process.env.SLIPWAY_CHROMIUM ?? '/usr/bin/chromium';
export const BROWSER_ARTIFACTS = path.resolve(process.env.SLIPWAY_BROWSER_ARTIFACTS ?? path.join(__dirname, '../../.slipway/browser-artifacts'));
const CONSOLE_DIR = path.join(__dirname, '../../apps/console');

/** Builds the console when it has not been (the API serves apps/console/dist). */
export function ensureConsoleBuilt(): void {
  if (existsSync(path.join(CONSOLE_DIR, 'dist/index.html'))) return;
  const r = spawnSync(path.join(CONSOLE_DIR, 'node_modules/.bin/vite'), ['build', '--logLevel', 'warn'], { cwd: CONSOLE_DIR, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`vite build of the console failed (exit ${r.status})`);
}

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: apt-get install -y chromium (deploy/test.sh does)`);
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

/** A browser tab on the console, with what its page printed kept for the failure report. */
export interface ConsoleTab {
  context: BrowserContext;
  page: Page;
  /** Console messages and page errors, in order. */
  output: string[];
  /** Runs one step; when it throws, saves `<name>.png` and `<name>.console.txt` and says where. */
  step<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /** Saves a screenshot of the page as it is (`<label>-<name>.png` in BROWSER_ARTIFACTS), for people to look at. */
  keep(name: string): Promise<string>;
  /** axe-core on the page as it is: throws listing every serious or critical violation. */
  axe(screen: string): Promise<void>;
  close(): Promise<void>;
}

export async function openTab(browser: Browser, baseURL: string, label: string): Promise<ConsoleTab> {
  const context = await browser.newContext({ baseURL, viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const output: string[] = [];
  page.on('console', (m) => output.push(`[${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => output.push(`[pageerror] ${e.stack ?? e.message}`));
  const tab: ConsoleTab = {
    context,
    page,
    output,
    async step(name, fn) {
      try {
        return await fn();
      } catch (e) {
        await mkdir(BROWSER_ARTIFACTS, { recursive: true });
        const base = path.join(BROWSER_ARTIFACTS, `${label}-${name}`.replace(/[^a-zA-Z0-9._-]+/g, '_'));
        await page.screenshot({ path: `${base}.png`, fullPage: true }).catch(() => undefined);
        await writeFile(`${base}.console.txt`, `${page.url()}\n${output.join('\n')}\n`);
        (e as Error).message += `\n(browser: screenshot and console output in ${base}.png / .console.txt)`;
        throw e;
      }
    },
    async keep(name) {
      await mkdir(BROWSER_ARTIFACTS, { recursive: true });
      const file = path.join(BROWSER_ARTIFACTS, `${label}-${name}.png`);
      await page.screenshot({ path: file });
      return file;
    },
    async axe(screen) {
      const result = await new AxeBuilder({ page }).analyze();
      const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      if (bad.length) {
        const lines = bad.map((v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).slice(0, 5).join(', ')}`);
        throw new Error(`axe-core on ${screen} (${page.url()}):\n${lines.join('\n')}`);
      }
    },
    close: () => context.close(),
  };
  return tab;
}

export type { Browser, Locator, Page } from 'playwright-core';

/** Waits until the locator's element is visible (Playwright's own `expect` is in @playwright/test, not used here). */
export async function visible(locator: Locator, timeout = 30_000): Promise<void> {
  await locator.first().waitFor({ state: 'visible', timeout });
}
