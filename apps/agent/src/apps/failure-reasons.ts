import { AppError } from '@slipway/core';

/**
 * The sentences a deployment's failureReason is made of when the engine refuses something: about the app and what
 * to do, never the engine's text (which goes to the deployment log and the agent's log). Pure: failure-reasons.spec.ts.
 */

/** The engine's own message of a dockerode error, without the `(HTTP code 400) unexpected - ` wrapper. */
export function engineMessage(e: unknown): string {
  const err = e as { json?: { message?: unknown }; message?: string };
  if (err?.json && typeof err.json.message === 'string') return err.json.message;
  const text = typeof err?.message === 'string' ? err.message : String(e);
  return text.replace(/^\(HTTP code \d+\)\s*[\w ]*-\s*/, '');
}

/** The engine's socket refused or missing (the engine restarting): not an answer about the app. */
export function engineUnreachable(e: unknown): boolean {
  const { code, syscall } = (e ?? {}) as NodeJS.ErrnoException;
  return !!code && ['ECONNREFUSED', 'ECONNRESET', 'ENOENT', 'EACCES', 'EPIPE'].includes(code) && (syscall === 'connect' || code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'EPIPE');
}

/** Why a pull failed, as the user can act on it. */
export function pullFailure(image: string, message: string): AppError {
  const why = /unauthorized|denied|authentication required|forbidden/i.test(message)
    ? 'the registry refused access to it (is it private?)'
    : /invalid reference format/i.test(message)
      ? 'its name is not a valid image reference'
      : /manifest unknown|not found|does not exist|no such image/i.test(message)
        ? 'no registry has it (check its name and tag) and it is not on this server'
        : 'no registry answered and it is not on this server';
  return new AppError('rollout_failed', `The image ${image} could not be pulled: ${why}`);
}

export type RolloutStep = 'image' | 'folder' | 'network' | 'container' | 'route';

/**
 * A rollout step the engine refused. Causes in the app's image fail the deployment at once (`rollout_failed`); the
 * rest are the server's (`internal`: the job tries again, and the last try's sentence stays).
 */
export function rolloutFailure(step: RolloutStep, message: string): AppError {
  if (step === 'container') {
    if (/executable file not found|no such file or directory/i.test(message)) {
      return new AppError('rollout_failed', "The app's start command was not found in its image: check the image's CMD or ENTRYPOINT");
    }
    if (/permission denied/i.test(message)) return new AppError('rollout_failed', "The app's start command is not executable in its image");
    if (/exec format error/i.test(message)) return new AppError('rollout_failed', "The app's image was built for another processor architecture than this server's");
  }
  const what: Record<RolloutStep, string> = {
    image: "The app's image could not be read on the server",
    folder: "The app's project folder could not be prepared from its image",
    network: "The server could not set up this workspace's network",
    container: "The app's container could not be started on the server",
    route: "The app's route could not be set on the server's ingress",
  };
  return new AppError('internal', `${what[step]}; the server's message is in the deployment log`);
}
