// Original file: ../../proto/slipway/agent/v1/build.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { BuildEvent as _slipway_agent_v1_BuildEvent, BuildEvent__Output as _slipway_agent_v1_BuildEvent__Output } from '../../../slipway/agent/v1/BuildEvent';
import type { BuildGithubRequest as _slipway_agent_v1_BuildGithubRequest, BuildGithubRequest__Output as _slipway_agent_v1_BuildGithubRequest__Output } from '../../../slipway/agent/v1/BuildGithubRequest';
import type { BuildZipRequest as _slipway_agent_v1_BuildZipRequest, BuildZipRequest__Output as _slipway_agent_v1_BuildZipRequest__Output } from '../../../slipway/agent/v1/BuildZipRequest';
import type { DiscardUploadRequest as _slipway_agent_v1_DiscardUploadRequest, DiscardUploadRequest__Output as _slipway_agent_v1_DiscardUploadRequest__Output } from '../../../slipway/agent/v1/DiscardUploadRequest';
import type { DiscardUploadResponse as _slipway_agent_v1_DiscardUploadResponse, DiscardUploadResponse__Output as _slipway_agent_v1_DiscardUploadResponse__Output } from '../../../slipway/agent/v1/DiscardUploadResponse';
import type { UploadZipChunk as _slipway_agent_v1_UploadZipChunk, UploadZipChunk__Output as _slipway_agent_v1_UploadZipChunk__Output } from '../../../slipway/agent/v1/UploadZipChunk';
import type { UploadZipResult as _slipway_agent_v1_UploadZipResult, UploadZipResult__Output as _slipway_agent_v1_UploadZipResult__Output } from '../../../slipway/agent/v1/UploadZipResult';

export interface BuildsClient extends grpc.Client {
  /**
   * Builds one commit of a GitHub repository (issue 16): the agent downloads the commit's tarball from GitHub's API
   * with the short-lived installation token of the request (sent once, never written to disk or to any log), follows
   * GitHub's redirect without the token, then extracts, detects and builds like BuildZip (same limits, same events,
   * same errors; a tarball GitHub refuses is FAILED_PRECONDITION `build_failed` with the reason).
   */
  BuildGithub(argument: _slipway_agent_v1_BuildGithubRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_BuildEvent__Output>;
  BuildGithub(argument: _slipway_agent_v1_BuildGithubRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_BuildEvent__Output>;
  /**
   * Builds one commit of a GitHub repository (issue 16): the agent downloads the commit's tarball from GitHub's API
   * with the short-lived installation token of the request (sent once, never written to disk or to any log), follows
   * GitHub's redirect without the token, then extracts, detects and builds like BuildZip (same limits, same events,
   * same errors; a tarball GitHub refuses is FAILED_PRECONDITION `build_failed` with the reason).
   */
  buildGithub(argument: _slipway_agent_v1_BuildGithubRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_BuildEvent__Output>;
  buildGithub(argument: _slipway_agent_v1_BuildGithubRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_BuildEvent__Output>;
  
  /**
   * Builds the uploaded .zip of a deployment into `slipway-app/<app_id>:<deployment_id>`: safe extraction,
   * detection, docker build under the build limits. Streams each log line, then the result. A build that fails
   * answers FAILED_PRECONDITION with the code `build_failed` and the reason. Cancelling the call stops the build.
   * The operation id makes a repeated call (a retried job) wait for or replay the same build.
   */
  BuildZip(argument: _slipway_agent_v1_BuildZipRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_BuildEvent__Output>;
  BuildZip(argument: _slipway_agent_v1_BuildZipRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_BuildEvent__Output>;
  /**
   * Builds the uploaded .zip of a deployment into `slipway-app/<app_id>:<deployment_id>`: safe extraction,
   * detection, docker build under the build limits. Streams each log line, then the result. A build that fails
   * answers FAILED_PRECONDITION with the code `build_failed` and the reason. Cancelling the call stops the build.
   * The operation id makes a repeated call (a retried job) wait for or replay the same build.
   */
  buildZip(argument: _slipway_agent_v1_BuildZipRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_BuildEvent__Output>;
  buildZip(argument: _slipway_agent_v1_BuildZipRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_BuildEvent__Output>;
  
  /**
   * Removes the uploaded .zip of a deployment (after its build, or when the deployment was never created).
   */
  DiscardUpload(argument: _slipway_agent_v1_DiscardUploadRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DiscardUploadResponse__Output>): grpc.ClientUnaryCall;
  DiscardUpload(argument: _slipway_agent_v1_DiscardUploadRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_DiscardUploadResponse__Output>): grpc.ClientUnaryCall;
  DiscardUpload(argument: _slipway_agent_v1_DiscardUploadRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DiscardUploadResponse__Output>): grpc.ClientUnaryCall;
  DiscardUpload(argument: _slipway_agent_v1_DiscardUploadRequest, callback: grpc.requestCallback<_slipway_agent_v1_DiscardUploadResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Removes the uploaded .zip of a deployment (after its build, or when the deployment was never created).
   */
  discardUpload(argument: _slipway_agent_v1_DiscardUploadRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DiscardUploadResponse__Output>): grpc.ClientUnaryCall;
  discardUpload(argument: _slipway_agent_v1_DiscardUploadRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_DiscardUploadResponse__Output>): grpc.ClientUnaryCall;
  discardUpload(argument: _slipway_agent_v1_DiscardUploadRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DiscardUploadResponse__Output>): grpc.ClientUnaryCall;
  discardUpload(argument: _slipway_agent_v1_DiscardUploadRequest, callback: grpc.requestCallback<_slipway_agent_v1_DiscardUploadResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * The .zip of a deployment sent in chunks: the header first, then data, then `commit` with the total size. The
   * agent writes `<data dir>/uploads/<deployment_id>.zip.part` and renames it on commit only; a stream that breaks,
   * is cancelled or passes the server's size limit (INVALID_ARGUMENT, `payload_too_large`) leaves nothing on disk.
   */
  UploadZip(metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_UploadZipResult__Output>): grpc.ClientWritableStream<_slipway_agent_v1_UploadZipChunk>;
  UploadZip(metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_UploadZipResult__Output>): grpc.ClientWritableStream<_slipway_agent_v1_UploadZipChunk>;
  UploadZip(options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_UploadZipResult__Output>): grpc.ClientWritableStream<_slipway_agent_v1_UploadZipChunk>;
  UploadZip(callback: grpc.requestCallback<_slipway_agent_v1_UploadZipResult__Output>): grpc.ClientWritableStream<_slipway_agent_v1_UploadZipChunk>;
  /**
   * The .zip of a deployment sent in chunks: the header first, then data, then `commit` with the total size. The
   * agent writes `<data dir>/uploads/<deployment_id>.zip.part` and renames it on commit only; a stream that breaks,
   * is cancelled or passes the server's size limit (INVALID_ARGUMENT, `payload_too_large`) leaves nothing on disk.
   */
  uploadZip(metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_UploadZipResult__Output>): grpc.ClientWritableStream<_slipway_agent_v1_UploadZipChunk>;
  uploadZip(metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_UploadZipResult__Output>): grpc.ClientWritableStream<_slipway_agent_v1_UploadZipChunk>;
  uploadZip(options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_UploadZipResult__Output>): grpc.ClientWritableStream<_slipway_agent_v1_UploadZipChunk>;
  uploadZip(callback: grpc.requestCallback<_slipway_agent_v1_UploadZipResult__Output>): grpc.ClientWritableStream<_slipway_agent_v1_UploadZipChunk>;
  
}

export interface BuildsHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Builds one commit of a GitHub repository (issue 16): the agent downloads the commit's tarball from GitHub's API
   * with the short-lived installation token of the request (sent once, never written to disk or to any log), follows
   * GitHub's redirect without the token, then extracts, detects and builds like BuildZip (same limits, same events,
   * same errors; a tarball GitHub refuses is FAILED_PRECONDITION `build_failed` with the reason).
   */
  BuildGithub: grpc.handleServerStreamingCall<_slipway_agent_v1_BuildGithubRequest__Output, _slipway_agent_v1_BuildEvent>;
  
  /**
   * Builds the uploaded .zip of a deployment into `slipway-app/<app_id>:<deployment_id>`: safe extraction,
   * detection, docker build under the build limits. Streams each log line, then the result. A build that fails
   * answers FAILED_PRECONDITION with the code `build_failed` and the reason. Cancelling the call stops the build.
   * The operation id makes a repeated call (a retried job) wait for or replay the same build.
   */
  BuildZip: grpc.handleServerStreamingCall<_slipway_agent_v1_BuildZipRequest__Output, _slipway_agent_v1_BuildEvent>;
  
  /**
   * Removes the uploaded .zip of a deployment (after its build, or when the deployment was never created).
   */
  DiscardUpload: grpc.handleUnaryCall<_slipway_agent_v1_DiscardUploadRequest__Output, _slipway_agent_v1_DiscardUploadResponse>;
  
  /**
   * The .zip of a deployment sent in chunks: the header first, then data, then `commit` with the total size. The
   * agent writes `<data dir>/uploads/<deployment_id>.zip.part` and renames it on commit only; a stream that breaks,
   * is cancelled or passes the server's size limit (INVALID_ARGUMENT, `payload_too_large`) leaves nothing on disk.
   */
  UploadZip: grpc.handleClientStreamingCall<_slipway_agent_v1_UploadZipChunk__Output, _slipway_agent_v1_UploadZipResult>;
  
}

export interface BuildsDefinition extends grpc.ServiceDefinition {
  BuildGithub: MethodDefinition<_slipway_agent_v1_BuildGithubRequest, _slipway_agent_v1_BuildEvent, _slipway_agent_v1_BuildGithubRequest__Output, _slipway_agent_v1_BuildEvent__Output>
  BuildZip: MethodDefinition<_slipway_agent_v1_BuildZipRequest, _slipway_agent_v1_BuildEvent, _slipway_agent_v1_BuildZipRequest__Output, _slipway_agent_v1_BuildEvent__Output>
  DiscardUpload: MethodDefinition<_slipway_agent_v1_DiscardUploadRequest, _slipway_agent_v1_DiscardUploadResponse, _slipway_agent_v1_DiscardUploadRequest__Output, _slipway_agent_v1_DiscardUploadResponse__Output>
  UploadZip: MethodDefinition<_slipway_agent_v1_UploadZipChunk, _slipway_agent_v1_UploadZipResult, _slipway_agent_v1_UploadZipChunk__Output, _slipway_agent_v1_UploadZipResult__Output>
}
