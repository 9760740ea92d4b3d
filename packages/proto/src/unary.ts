import type * as grpc from '@grpc/grpc-js';
import type { AgentTarget } from '@slipway/core';
import { fromServiceError } from './errors';

const UNARY_DEADLINE_MS = 30_000;

/** How a server is named in errors: its name and address, or its address alone. */
export const label = (target: AgentTarget) => (target.name ? `${target.name} (${target.grpcAddress})` : target.grpcAddress);

/** One unary call to a server's agent: its error as an AppError (fromServiceError), a deadline (default 30 s). */
export function unary<T>(target: AgentTarget, start: (cb: grpc.requestCallback<T>, options: grpc.CallOptions) => void, deadlineMs = UNARY_DEADLINE_MS): Promise<T> {
  return new Promise((resolve, reject) => {
    start(
      (err, res) => {
        if (err) reject(fromServiceError(err, label(target)));
        else resolve(res as T);
      },
      { deadline: Date.now() + deadlineMs },
    );
  });
}
