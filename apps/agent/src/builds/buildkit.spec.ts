import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildKitUnavailable, buildWithBuildKit, stepTimes } from './buildkit';
import { BuildError } from './extract';

// The docker CLI's --progress=plain output, replayed by a stand-in CLI (a script in place of /usr/bin/docker).
let work: string;
beforeEach(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'slipway-buildkit-'));
  await mkdir(path.join(work, 'ctx'));
});
afterEach(() => rm(work, { recursive: true, force: true }));

async function fakeCli(stderr: string, exit: number, imageId = ''): Promise<string> {
  const cli = path.join(work, 'docker');
  await writeFile(path.join(work, 'out.txt'), stderr);
  // The last argument is the context; --iidfile's value is where the image id goes.
  await writeFile(
    cli,
    `#!/bin/sh\nwhile [ $# -gt 0 ]; do if [ "$1" = --iidfile ]; then iid="$2"; fi; shift; done\ncat ${JSON.stringify(path.join(work, 'out.txt'))} >&2\n${imageId ? `printf '%s' ${imageId} > "$iid"\n` : ''}exit ${exit}\n`,
  );
  await chmod(cli, 0o755);
  return cli;
}

const run = async (cli: string, lines: string[]) =>
  buildWithBuildKit(
    { dockerCli: cli, dockerSocket: '/nonexistent.sock', context: path.join(work, 'ctx'), imageRef: 'x:y', labels: {}, secrets: {}, iidfile: path.join(work, 'iid'), nocache: false, timeoutMs: 10_000, memoryMb: 1024 },
    (l) => lines.push(l),
  ).catch((e: unknown) => e);

describe('buildWithBuildKit', () => {
  it('emits the steps and their output, names reused steps, and returns the image id', async () => {
    const cli = await fakeCli(
      [
        '#1 [internal] load build definition from Dockerfile',
        '#1 DONE 0.0s',
        '#4 [deps 3/5] COPY slipway/install.sh /usr/local/bin/slipway-install',
        '#4 CACHED',
        '#5 [deps 4/5] RUN --mount=type=cache,id=slipway-a-pm,target=/cache,sharing=locked sh /usr/local/bin/slipway-install && mkdir -p node_modules',
        '#5 CACHED',
        '#7 [build 2/3] RUN npm run build',
        '#7 0.512 > app@1.0.0 build',
        '#7 DONE 1.2s',
        '',
      ].join('\n'),
      0,
      'sha256:abc',
    );
    const lines: string[] = [];
    expect(await run(cli, lines)).toBe('sha256:abc');
    expect(lines).toEqual([
      '[deps 3/5] COPY slipway/install.sh /usr/local/bin/slipway-install',
      '  cached: COPY slipway/install.sh /usr/local/bin/slipway-install',
      '[deps 4/5] RUN --mount=type=cache,id=slipway-a-pm,target=/cache,sharing=locked sh /usr/local/bin/slipway-install && mkdir -p node_modules',
      '  cached: RUN --mount=type=cache,id=slipway-a-pm,target=/cache,sharing=locked sh /usr/local/bin/slipway-install && mkdir -p node_modules',
      'Dependencies reused from the build cache (package.json and the lockfile are unchanged)',
      '[build 2/3] RUN npm run build',
      '> app@1.0.0 build',
      'Step times: RUN npm run build 1.2 s',
    ]);
  });

  it("a failed step: the reason is the tool's error, the step named as a user knows it", async () => {
    const cli = await fakeCli(
      [
        '#9 [build 3/4] RUN --mount=type=secret,id=slipway-variables,target=/run/secrets/slipway-variables.json node /usr/local/share/slipway/with-env.cjs npm run build',
        "#9 3.100 src/App.tsx(3,9): error TS2322: Type 'string' is not assignable to type 'number'.",
        '#9 3.200 npm error code 2',
        '#9 ERROR: executor failed running [/bin/sh -c node /usr/local/share/slipway/with-env.cjs npm run build]: exit code: 2',
        '------',
        'executor failed running [/bin/sh -c …]: exit code: 2',
      ].join('\n'),
      1,
    );
    const e = await run(cli, []);
    expect(e).toBeInstanceOf(BuildError);
    expect((e as Error).message).toBe("The build script (npm run build) failed (exit code 2): src/App.tsx(3,9): error TS2322: Type 'string' is not assignable to type 'number'.");
  });
});

describe('stepTimes', () => {
  it('names the steps of half a second or more, longest first, without mounts or the cache marker', () => {
    expect(
      stepTimes([
        { name: 'load build context', seconds: 0.6 },
        { name: 'COPY ["app/package.json","app/package-lock.json","./"]', seconds: 0.1 },
        { name: 'RUN --mount=type=cache,id=slipway-0f4e-pm,target=/cache,sharing=locked : slipway-0f4e-1a2b-cache && sh /usr/local/bin/slipway-install && mkdir -p node_modules', seconds: 23.4 },
        { name: 'RUN --mount=type=cache,id=slipway-0f4e-build,target=/app/.next/cache,sharing=locked : slipway-0f4e-1a2b-cache && npm run build', seconds: 31.25 },
        { name: 'exporting to image', seconds: 2.04 },
        { name: '', seconds: 9 },
      ]),
    ).toBe('Step times: RUN npm run build 31.3 s, RUN sh /usr/local/bin/slipway-install && mkdir -p node_modules 23.4 s, exporting to image 2.0 s, load build context 0.6 s');
  });

  it('says nothing when no step took half a second', () => {
    expect(stepTimes([{ name: 'COPY app/ ./', seconds: 0.2 }])).toBeNull();
  });
});

describe('buildKitUnavailable', () => {
  async function cli(script: string): Promise<string> {
    const file = path.join(work, 'docker');
    await writeFile(file, `#!/bin/sh\n${script}\n`);
    await chmod(file, 0o755);
    return file;
  }

  it("a 20.10 client builds with BuildKit itself", async () => {
    expect(await buildKitUnavailable(await cli('echo "Docker version 20.10.24+dfsg1, build 297e128"'))).toBeNull();
  });

  it('a 23+ client needs buildx: usable with it, a sentence naming the setting without it', async () => {
    expect(await buildKitUnavailable(await cli('[ "$1" = buildx ] && exit 0; echo "Docker version 28.2.2, build e6534b4"'))).toBeNull();
    expect(await buildKitUnavailable(await cli('[ "$1" = buildx ] && { echo "docker: unknown command: docker buildx" >&2; exit 1; }; echo "Docker version 28.2.2, build e6534b4"'))).toMatch(
      /is version 28, which builds with BuildKit only through its buildx plugin, and that is missing \(set SLIPWAY_BUILD_DOCKER_CLI/,
    );
  });

  it('no CLI there: a sentence naming it', async () => {
    expect(await buildKitUnavailable(path.join(work, 'no-such-docker'))).toMatch(/^the docker CLI .*no-such-docker could not be run \(/);
  });
});
