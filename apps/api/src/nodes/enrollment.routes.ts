import type { EnrollmentService } from '@slipway/core';
import type { HandlerTable } from '../http/operations';

/**
 * `POST /v1/agent/enroll`: `slipway-agent join` sends its CSR with a one-time enrollment token (the only
 * credential) and gets its signed certificate and the CA's. Body validated against the document.
 */
export function enrollmentRoutes(services: { enrollment: EnrollmentService }): HandlerTable {
  return {
    enrollAgent: async ({ body }) => services.enrollment.enroll(body),
  };
}
