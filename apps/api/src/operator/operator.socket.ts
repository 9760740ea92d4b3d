// The operator API's listener: a Unix socket, never TCP (decision 0037). The socket file is created mode 0600 (the
// process's umask is narrowed around the bind, so there is no moment it is open to others) and owned by the user the
// API runs as: the same people who can read the control plane's environment file and run `slipway-admin`.
import { chmod, lstat, mkdir, unlink } from 'node:fs/promises';
import { createConnection, type Server } from 'node:net';
import path from 'node:path';
import type { RequestListener } from 'node:http';
import { createServer } from 'node:http';

/** The longest path a Unix socket address holds on Linux (sun_path is 108 bytes with its terminating NUL). */
export const SOCKET_PATH_MAX_BYTES = 107;

export class OperatorSocketError extends Error {}

export interface OperatorSocket {
  path: string;
  server: Server;
  /** Stops accepting, ends idle connections, waits up to `graceMs` for requests in flight, removes the socket file. */
  close(graceMs?: number): Promise<void>;
}

/** Whether something accepts connections on the socket at `file` (a live API), as opposed to a file left by a crash. */
function answers(file: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ path: file });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Serves `app` on the Unix socket `file`. A socket file left by a process that ended is replaced; a live one (another
 * API serving it) or a file that is not a socket stops start-up with a sentence, as does a path too long for a socket.
 */
export async function serveOperatorSocket(file: string, app: RequestListener): Promise<OperatorSocket> {
  if (!path.isAbsolute(file)) throw new OperatorSocketError(`The operator socket path "${file}" must be absolute (SLIPWAY_OPERATOR_SOCKET)`);
  if (Buffer.byteLength(file) > SOCKET_PATH_MAX_BYTES) {
    throw new OperatorSocketError(
      `The operator socket path "${file}" is ${Buffer.byteLength(file)} bytes; a Unix socket's path holds at most ${SOCKET_PATH_MAX_BYTES}: set SLIPWAY_OPERATOR_SOCKET to a shorter one, or to "off"`,
    );
  }
  // Its folder: created for the service's user only when missing (an existing one keeps its mode).
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const existing = await lstat(file).catch(() => null);
  if (existing) {
    if (!existing.isSocket()) throw new OperatorSocketError(`${file} exists and is not a socket; the operator API will not replace it (SLIPWAY_OPERATOR_SOCKET)`);
    if (await answers(file)) throw new OperatorSocketError(`Another process serves the operator socket ${file} (is another API running?)`);
    await unlink(file);
  }
  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    const failed = (e: Error) => reject(new OperatorSocketError(`The operator socket ${file} could not be opened: ${e.message}`));
    server.once('error', failed);
    server.once('listening', () => {
      server.off('error', failed);
      resolve();
    });
    const previous = process.umask(0o177);
    try {
      server.listen(file);
    } finally {
      process.umask(previous);
    }
  });
  // Belt and braces: whatever the umask did, the mode is 0600.
  await chmod(file, 0o600);
  return {
    path: file,
    server,
    async close(graceMs = 10_000) {
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeIdleConnections();
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
      server.closeAllConnections();
      // Node removes the socket file on close; a file that is still there is left by nobody.
      await unlink(file).catch(() => undefined);
    },
  };
}
