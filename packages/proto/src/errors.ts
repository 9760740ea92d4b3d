import * as grpc from '@grpc/grpc-js';
import { AppError, ERROR_CODES, type ErrorCode } from '@slipway/core';

const Status = grpc.status;

/** The one table from error code to gRPC status; codes not listed travel as FAILED_PRECONDITION. */
export const GRPC_STATUS: Partial<Record<ErrorCode, grpc.status>> = {
  invalid_json: Status.INVALID_ARGUMENT,
  validation_failed: Status.INVALID_ARGUMENT,
  invalid_path: Status.INVALID_ARGUMENT,
  invalid_cursor: Status.INVALID_ARGUMENT,
  not_a_file: Status.INVALID_ARGUMENT,
  not_a_folder: Status.INVALID_ARGUMENT,
  invalid_hostname: Status.INVALID_ARGUMENT,
  payload_too_large: Status.INVALID_ARGUMENT,
  unsupported_media_type: Status.INVALID_ARGUMENT,
  unauthorized: Status.UNAUTHENTICATED,
  forbidden: Status.PERMISSION_DENIED,
  not_found: Status.NOT_FOUND,
  destination_exists: Status.ALREADY_EXISTS,
  name_taken: Status.ALREADY_EXISTS,
  node_unavailable: Status.UNAVAILABLE,
  service_unavailable: Status.UNAVAILABLE,
  internal: Status.INTERNAL,
};

const CODE_HEADER = 'slipway-error-code';

/** Agent side: an AppError becomes a status with its code in the trailers; anything else is INTERNAL. */
export function toServiceError(e: unknown): Partial<grpc.StatusObject> {
  const metadata = new grpc.Metadata();
  if (e instanceof AppError) {
    metadata.set(CODE_HEADER, e.code);
    return { code: GRPC_STATUS[e.code] ?? Status.FAILED_PRECONDITION, details: e.message, metadata };
  }
  metadata.set(CODE_HEADER, 'internal');
  return { code: Status.INTERNAL, details: (e as Error)?.message ?? 'internal error', metadata };
}

// Statuses that say nothing about the command, only that the agent could not be reached or answer.
const TRANSPORT = new Set<grpc.status>([Status.UNAVAILABLE, Status.DEADLINE_EXCEEDED, Status.CANCELLED, Status.UNKNOWN, Status.RESOURCE_EXHAUSTED]);

/** Control-plane side: back to an AppError; unreachable agents become `node_unavailable` (transient). */
export function fromServiceError(e: grpc.ServiceError | Error, target: string): AppError {
  const se = e as grpc.ServiceError;
  const sent = se.metadata?.get?.(CODE_HEADER)?.[0];
  if (typeof sent === 'string' && (ERROR_CODES as readonly string[]).includes(sent)) {
    return new AppError(sent as ErrorCode, se.details || se.message);
  }
  if (typeof se.code !== 'number' || TRANSPORT.has(se.code) || se.code === Status.INTERNAL) {
    return new AppError('node_unavailable', `The agent at ${target} did not answer: ${se.details || se.message}`);
  }
  if (se.code === Status.UNAUTHENTICATED || se.code === Status.PERMISSION_DENIED) {
    return new AppError('node_unavailable', `The agent at ${target} refused the control plane: ${se.details || se.message}`);
  }
  return new AppError('internal', `The agent at ${target} answered ${Status[se.code]}: ${se.details || se.message}`);
}
