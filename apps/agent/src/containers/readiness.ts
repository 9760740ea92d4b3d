import net from 'node:net';

/** When a started container counts as ready: it answers on its host port (TCP, or `GET healthPath` 2xx/3xx). */
export interface Readiness {
  hostPort: number;
  /** Empty: a TCP connection that stays open is enough. */
  healthPath: string;
  timeoutMs: number;
}

/** A free TCP port on 127.0.0.1, for a container's fixed host port. */
export function freeHostPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/** Whether the container behind the host port answers as `r` asks. */
export function answers(r: Readiness): Promise<boolean> {
  return r.healthPath ? httpOk(r.hostPort, r.healthPath) : tcpAnswers(r.hostPort);
}

/**
 * Whether something accepts connections behind 127.0.0.1:port. Docker's proxy accepts on the host port even when
 * nothing listens in the container, then closes at once; a connection that stays open for 150 ms is a listener.
 */
function tcpAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let done = false;
    const finish = (ok: boolean) => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => setTimeout(() => finish(true), 150));
    socket.once('error', () => finish(false));
    socket.once('close', () => finish(false));
    socket.once('end', () => finish(false));
    socket.setTimeout(1_000, () => finish(false));
  });
}

async function httpOk(port: number, p: string): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}${p}`, { redirect: 'manual', signal: AbortSignal.timeout(1_000) });
    await res.arrayBuffer();
    return res.status >= 200 && res.status < 400;
  } catch {
    return false;
  }
}
