import { AppError } from '../errors';
import { failureReasonOf, NODE_UNREACHABLE_REASON, PLATFORM_ERROR_REASON } from './failure-reason';

describe('a deployment failure reason', () => {
  it("keeps the sentence the agent wrote for users, first line only", () => {
    expect(failureReasonOf(new AppError('rollout_failed', 'The app did not answer on its port within 6 s\nLast log lines:\nboom'))).toBe('The app did not answer on its port within 6 s');
    expect(failureReasonOf(new AppError('rollout_failed', 'The app did not answer on its port within 6 s: GET / on port 8080 (any HTTP response), last try: ECONNREFUSED'))).toMatch(/last try: ECONNREFUSED$/);
    expect(failureReasonOf(new AppError('internal', "The server could not set up this workspace's network; the server's message is in the deployment log"))).toMatch(/^The server could not/);
    expect(failureReasonOf(new AppError('rollout_failed', 'The server has no free network for this workspace; the operator has been told'))).toBe(
      'The server has no free network for this workspace; the operator has been told',
    );
  });

  it('never carries an engine, transport or library message', () => {
    expect(failureReasonOf(new AppError('internal', '(HTTP code 400) unexpected - 2 matches found based on name: network slipway-ws-1 is ambiguous'))).toBe(PLATFORM_ERROR_REASON);
    expect(failureReasonOf(new AppError('node_unavailable', 'The agent at 127.0.0.1:7443 did not answer: 14 UNAVAILABLE: No connection established'))).toBe(NODE_UNREACHABLE_REASON);
    expect(failureReasonOf(new Error('connect ECONNREFUSED 127.0.0.1:5432'))).toBe(PLATFORM_ERROR_REASON);
    expect(failureReasonOf(new AppError('internal', 'The agent at x answered INTERNAL: (HTTP code 404) driver not found - could not find an available, non-overlapping IPv4 address pool'))).toBe(PLATFORM_ERROR_REASON);
  });
});
