import * as grpc from '@grpc/grpc-js';
import { AppError } from '@slipway/core';
import { CONTROL_PLANE_CLIENT_NAME } from '@slipway/pki';
import { toServiceError } from '@slipway/proto';

/**
 * Every call of every service passes here before its handler runs. TLS already refused anyone without a certificate
 * from the control plane's CA; this also refuses a certificate of that CA that is not the control plane's (another
 * agent's, say). The pattern of grpc-node's interceptor example: the check runs on the call's metadata.
 */
export const controlPlaneOnly: grpc.ServerInterceptor = (_method, call) =>
  new grpc.ServerInterceptingCall(call, {
    start: (next) =>
      next({
        onReceiveMetadata: (metadata, pass) => {
          if (call.getAuthContext().sslPeerCertificate?.subject?.CN === CONTROL_PLANE_CLIENT_NAME) return pass(metadata);
          const status = toServiceError(new AppError('forbidden', 'Only the control plane may call this agent'));
          call.sendStatus({ code: status.code!, details: status.details!, metadata: status.metadata });
        },
      }),
  });
