import type * as grpc from '@grpc/grpc-js';
import type { Logger } from '@slipway/core';
import { toServiceError } from '@slipway/proto';
import { toCallError } from './errors';

/**
 * The three kinds of handler the agent's services are made of. Each owns what every call of its kind needs: the
 * error policy (errors.ts), cancellation (an AbortSignal that fires when the caller goes away) and backpressure
 * (a server stream's `send` resolves once gRPC has room; a client stream is read one message at a time).
 * Authorization is not here: the server's interceptor (authorize.ts) ran before any handler.
 */
export interface RpcEnv {
  rpc: string;
  logger: Logger;
}

/** A handler waiting for its name and logger; `serve` gives them. */
export type Bind<H> = (env: RpcEnv) => H;

/** A service's handlers by rpc name, before `serve`; a feature may own part of a service's table (`Pick<…>`). */
export type HandlerTable<H> = { [K in keyof H]: Bind<H[K]> };

/** A service as a table of handlers (`{ ListFiles: unary(…), ReadFile: serverStream(…) }`), ready for addService. */
export function serve<H>(logger: Logger, table: HandlerTable<H>): H {
  return Object.fromEntries(Object.entries(table).map(([rpc, bind]) => [rpc, (bind as Bind<unknown>)({ rpc, logger })])) as H;
}

/** A server stream's send: resolves once gRPC has room for more (backpressure); after a cancel it drops the message. */
export type Send<Res> = (message: Res) => Promise<void>;

export function unary<Req, Res>(fn: (req: Req, signal: AbortSignal) => Promise<Res>): Bind<grpc.handleUnaryCall<Req, Res>> {
  return ({ rpc, logger }) =>
    (call, callback) => {
      const signal = cancellation(call);
      Promise.resolve()
        .then(() => fn(call.request, signal))
        .then(
          (res) => callback(null, res),
          (e: unknown) => callback(toServiceError(toCallError(e, rpc, logger))),
        );
    };
}

/** The call ends when `fn` resolves; `fn` should return soon after `signal` fires (the caller is gone). */
export function serverStream<Req, Res>(fn: (req: Req, send: Send<Res>, signal: AbortSignal) => Promise<void>): Bind<grpc.handleServerStreamingCall<Req, Res>> {
  return ({ rpc, logger }) =>
    (call) => {
      const signal = cancellation(call);
      let room: Promise<void> | null = null;
      const send: Send<Res> = (message) => {
        if (signal.aborted || call.writableEnded) return Promise.resolve();
        if (call.write(message)) return Promise.resolve();
        // One wait per full buffer, however many senders (log lines) are behind it.
        room ??= new Promise<void>((resolve) => {
          const done = () => {
            room = null;
            call.off('drain', done);
            signal.removeEventListener('abort', done);
            resolve();
          };
          call.on('drain', done);
          signal.addEventListener('abort', done);
        });
        return room;
      };
      Promise.resolve()
        .then(() => fn(call.request, send, signal))
        .then(
          () => {
            if (!signal.aborted) call.end();
          },
          (e: unknown) => {
            if (!signal.aborted) call.emit('error', toServiceError(toCallError(e, rpc, logger)));
          },
        );
    };
}

/** `messages` ends when the client half-closes or cancels; what `fn` resolves with is the answer. */
export function clientStream<Req, Res>(fn: (messages: AsyncIterableIterator<Req>, signal: AbortSignal) => Promise<Res>): Bind<grpc.handleClientStreamingCall<Req, Res>> {
  return ({ rpc, logger }) =>
    (call, callback) => {
      const signal = cancellation(call);
      Promise.resolve()
        .then(() => fn(receive(call, signal), signal))
        .then(
          (res) => callback(null, res),
          (e: unknown) => callback(toServiceError(toCallError(e, rpc, logger))),
        );
    };
}

/** Resolves once the caller has gone: for streams that only the caller ends (subscriptions). */
export function untilCancelled(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
}

function cancellation(call: { cancelled: boolean; once(event: 'cancelled', listener: () => void): unknown }): AbortSignal {
  const abort = new AbortController();
  if (call.cancelled) abort.abort();
  else call.once('cancelled', () => abort.abort());
  return abort.signal;
}

/**
 * The messages of a client stream, one read at a time, ending at a cancel as at a half-close. Not Promise.race
 * against one long-lived "cancelled" promise: each race leaves a reaction on it that holds the settled message until
 * the call ends, so every chunk of an upload stayed in memory. The abort listener here lives for one read only.
 */
function receive<Req>(call: AsyncIterable<Req>, signal: AbortSignal): AsyncIterableIterator<Req> {
  const source = call[Symbol.asyncIterator]();
  const ended: IteratorResult<Req> = { done: true, value: undefined };
  const it: AsyncIterableIterator<Req> = {
    [Symbol.asyncIterator]: () => it,
    next: () =>
      signal.aborted
        ? Promise.resolve(ended)
        : new Promise<IteratorResult<Req>>((resolve, reject) => {
            const onAbort = () => resolve(ended);
            signal.addEventListener('abort', onAbort, { once: true });
            source.next().then(
              (m) => {
                signal.removeEventListener('abort', onAbort);
                resolve(m);
              },
              (e: unknown) => {
                signal.removeEventListener('abort', onAbort);
                reject(e);
              },
            );
          }),
  };
  return it;
}
