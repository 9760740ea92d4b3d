import { failureReason, toolErrors } from './failure-reason';

const RUN_BUILD = "The command '/bin/sh -c npm run build' returned a non-zero code: 1";

describe('failureReason', () => {
  it('a failed build script: the error the tool printed, not the Dockerfile line', () => {
    const lines = [
      '> my-app@0.1.0 build',
      '> next build',
      '   ▲ Next.js 16.0.0',
      'Failed to compile.',
      './app/page.tsx',
      "Type error: Property 'x' does not exist on type 'Y'.",
      'Error: Command failed with exit code 1',
      'npm error Lifecycle script `build` failed with error:',
      'npm error code 1',
      'npm error path /app',
      'npm error command failed',
      'npm error command sh -c next build',
      'npm error A complete log of this run can be found in: /root/.npm/_logs/x.log',
    ];
    const reason = failureReason('RUN npm run build', lines, RUN_BUILD, 1024);
    expect(reason).toBe("The build script (npm run build) failed (exit code 1): Type error: Property 'x' does not exist on type 'Y'. Error: Command failed with exit code 1");
    expect(reason).not.toContain('/bin/sh -c');
  });

  it("the platform's own message stands as it is", () => {
    const step = 'RUN for d in dist build out; do if [ -f "$d/index.html" ]; then …; fi; done';
    const reason = failureReason(step, ['slipway: The build left no index.html in dist/, so there is no static site to serve'], "The command '/bin/sh -c for d in dist' returned a non-zero code: 1", 1024);
    expect(reason).toBe('The build left no index.html in dist/, so there is no static site to serve');
  });

  it('an install killed by the memory limit says so', () => {
    expect(failureReason('RUN sh /usr/local/bin/slipway-install && mkdir -p node_modules', [], "The command '/bin/sh -c sh …' returned a non-zero code: 137", 512)).toBe(
      "Installing the dependencies was killed: it may have run out of the build's 512 MB of memory",
    );
  });

  it('an install that fails names the package npm could not fetch', () => {
    const lines = ['npm error code E404', "npm error 404 Not Found - GET https://registry.npmjs.org/not-a-real-pkg-xyz - Not found", 'npm error 404', 'npm error A complete log of this run can be found in: x'];
    const reason = failureReason('RUN sh /usr/local/bin/slipway-install && mkdir -p node_modules', lines, "The command '/bin/sh -c sh /usr/local/bin/slipway-install' returned a non-zero code: 1", 1024);
    expect(reason).toBe('Installing the dependencies failed (exit code 1): 404 Not Found - GET https://registry.npmjs.org/not-a-real-pkg-xyz - Not found 404');
  });

  it('a step without error lines points at the log, a user Dockerfile step is named', () => {
    expect(failureReason('RUN make', ['compiling…'], "The command '/bin/sh -c make' returned a non-zero code: 2", 1024)).toBe('The step "RUN make" failed (exit code 2); the build log above shows its output');
  });

  it('keeps at most the last four error lines, oldest first', () => {
    expect(toolErrors(['error: a', 'error: b', 'error: c', 'error: d', 'error: e', '    at foo (x.js:1:1)'])).toEqual(['error: b', 'error: c', 'error: d', 'error: e']);
  });
});
