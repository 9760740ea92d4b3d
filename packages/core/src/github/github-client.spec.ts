import { generateKeyPairSync } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { GitRepo, startGithubDouble, type GithubDouble } from '@slipway/testing/github';
import { AppError } from '../errors';
import { GithubClient } from './github-client';
import type { GithubAppSettings } from './github.ports';

// The client against the GitHub API double (an HTTP server in this process, repositories made with git).
describe('GithubClient', () => {
  let gh: GithubDouble;
  let repo: GitRepo;
  let settings: GithubAppSettings;
  let shop: { id: number };
  let other: { id: number };
  let inst: { id: number };
  let first: string;
  let second: string;

  beforeAll(async () => {
    gh = await startGithubDouble();
    repo = await GitRepo.create();
    first = await repo.commit({ 'a.txt': 'a', 'web/x.js': '1' }, 'first');
    second = await repo.commit({ 'web/x.js': '2' }, 'second');
    shop = gh.addRepository('acme/shop', repo);
    other = gh.addRepository('acme/secret', repo);
    inst = gh.addInstallation('acme', [shop.id]);
    settings = { appId: gh.appId, privateKeyPem: await readFile(gh.privateKeyFile, 'utf8'), webhookSecret: gh.webhookSecret, slug: gh.slug, apiUrl: gh.url, webUrl: gh.url };
  });

  afterAll(async () => {
    await gh?.close();
    await repo?.remove();
  });

  it('reads installations as the App (JWT), null for one GitHub does not know', async () => {
    const c = new GithubClient(settings);
    expect(await c.installation(inst.id)).toEqual({ id: inst.id, account: { login: 'acme', type: 'Organization' }, suspended: false, repositorySelection: 'selected' });
    expect(await c.installation(1)).toBeNull();
  });

  it('caches installation tokens (an hour each), one per repository scope', async () => {
    const c = new GithubClient(settings);
    const before = gh.issuedTokens().length;
    const a = await c.installationToken(inst.id);
    expect(await c.installationToken(inst.id)).toBe(a);
    const scoped = await c.installationToken(inst.id, shop.id);
    expect(scoped.token).not.toBe(a.token);
    expect(gh.issuedTokens().length).toBe(before + 2);
    expect(a.expiresAt.getTime()).toBeGreaterThan(Date.now() + 55 * 60 * 1000);
  });

  it('reads repositories, branches, commits and comparisons as the installation; out of reach is null', async () => {
    const c = new GithubClient(settings);
    expect(await c.repository(inst.id, 'acme/shop')).toEqual({ id: shop.id, fullName: 'acme/shop', private: true, defaultBranch: 'main' });
    expect(await c.repositoryById(inst.id, shop.id)).toMatchObject({ fullName: 'acme/shop' });
    expect(await c.repository(inst.id, 'acme/secret')).toBeNull();
    expect(await c.repositoryById(inst.id, other.id)).toBeNull();
    expect(await c.repositories(inst.id, { page: 1, perPage: 10 })).toMatchObject({ total: 1, repositories: [{ id: shop.id }] });
    expect(await c.branchHead(inst.id, 'acme/shop', 'main')).toMatchObject({ sha: second, message: 'second', author: 'test-dev' });
    expect(await c.branchHead(inst.id, 'acme/shop', 'nope')).toBeNull();
    expect(await c.commit(inst.id, 'acme/shop', first)).toMatchObject({ sha: first, message: 'first' });
    expect(await c.commit(inst.id, 'acme/shop', 'f'.repeat(40))).toBeNull();
    expect(await c.changedFiles(inst.id, 'acme/shop', first, second)).toEqual(['web/x.js']);
    await c.setCommitStatus(inst.id, 'acme/shop', second, { state: 'pending', targetUrl: 'https://x/d/1', description: 'building', context: 'slipway' });
    expect(gh.statuses().at(-1)).toEqual({ repo: 'acme/shop', sha: second, state: 'pending', targetUrl: 'https://x/d/1', description: 'building', context: 'slipway' });
  });

  it('says which credentials GitHub refused: another key is 401, a deleted installation is access lost', async () => {
    const wrongKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const e = await new GithubClient({ ...settings, privateKeyPem: wrongKey }).installation(inst.id).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(AppError);
    expect([(e as AppError).code, (e as AppError).message]).toEqual(['github_unavailable', expect.stringMatching(/refused the platform's GitHub App credentials/)]);
    const gone = gh.addInstallation('gone', []);
    gh.deleteInstallation(gone.id);
    const lost = await new GithubClient(settings).installationToken(gone.id).catch((err: unknown) => err);
    expect((lost as AppError).code).toBe('github_access_lost');
    const unreachable = await new GithubClient({ ...settings, apiUrl: 'http://127.0.0.1:1' }).installation(inst.id).catch((err: unknown) => err);
    expect((unreachable as AppError).code).toBe('github_unavailable');
  });
});
