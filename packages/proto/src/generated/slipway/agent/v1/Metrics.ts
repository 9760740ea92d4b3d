// Original file: ../../proto/slipway/agent/v1/metrics.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { NodeUsageRequest as _slipway_agent_v1_NodeUsageRequest, NodeUsageRequest__Output as _slipway_agent_v1_NodeUsageRequest__Output } from '../../../slipway/agent/v1/NodeUsageRequest';
import type { NodeUsageResponse as _slipway_agent_v1_NodeUsageResponse, NodeUsageResponse__Output as _slipway_agent_v1_NodeUsageResponse__Output } from '../../../slipway/agent/v1/NodeUsageResponse';
import type { PullMetricsRequest as _slipway_agent_v1_PullMetricsRequest, PullMetricsRequest__Output as _slipway_agent_v1_PullMetricsRequest__Output } from '../../../slipway/agent/v1/PullMetricsRequest';
import type { PullMetricsResponse as _slipway_agent_v1_PullMetricsResponse, PullMetricsResponse__Output as _slipway_agent_v1_PullMetricsResponse__Output } from '../../../slipway/agent/v1/PullMetricsResponse';

export interface MetricsClient extends grpc.Client {
  /**
   * The server's used and free CPU, memory and disk now (what `slipway-admin nodes` shows).
   */
  NodeUsage(argument: _slipway_agent_v1_NodeUsageRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_NodeUsageResponse__Output>): grpc.ClientUnaryCall;
  NodeUsage(argument: _slipway_agent_v1_NodeUsageRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_NodeUsageResponse__Output>): grpc.ClientUnaryCall;
  NodeUsage(argument: _slipway_agent_v1_NodeUsageRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_NodeUsageResponse__Output>): grpc.ClientUnaryCall;
  NodeUsage(argument: _slipway_agent_v1_NodeUsageRequest, callback: grpc.requestCallback<_slipway_agent_v1_NodeUsageResponse__Output>): grpc.ClientUnaryCall;
  /**
   * The server's used and free CPU, memory and disk now (what `slipway-admin nodes` shows).
   */
  nodeUsage(argument: _slipway_agent_v1_NodeUsageRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_NodeUsageResponse__Output>): grpc.ClientUnaryCall;
  nodeUsage(argument: _slipway_agent_v1_NodeUsageRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_NodeUsageResponse__Output>): grpc.ClientUnaryCall;
  nodeUsage(argument: _slipway_agent_v1_NodeUsageRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_NodeUsageResponse__Output>): grpc.ClientUnaryCall;
  nodeUsage(argument: _slipway_agent_v1_NodeUsageRequest, callback: grpc.requestCallback<_slipway_agent_v1_NodeUsageResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Closed minutes after `after` (the caller's cursor), oldest first, at most `limit_minutes` of them. Asking with
   * `after` = N acknowledges every minute up to N: the agent forgets them. Pulling twice with the same cursor
   * answers the same points again (the caller stores them idempotently).
   */
  PullMetrics(argument: _slipway_agent_v1_PullMetricsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_PullMetricsResponse__Output>): grpc.ClientUnaryCall;
  PullMetrics(argument: _slipway_agent_v1_PullMetricsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_PullMetricsResponse__Output>): grpc.ClientUnaryCall;
  PullMetrics(argument: _slipway_agent_v1_PullMetricsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_PullMetricsResponse__Output>): grpc.ClientUnaryCall;
  PullMetrics(argument: _slipway_agent_v1_PullMetricsRequest, callback: grpc.requestCallback<_slipway_agent_v1_PullMetricsResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Closed minutes after `after` (the caller's cursor), oldest first, at most `limit_minutes` of them. Asking with
   * `after` = N acknowledges every minute up to N: the agent forgets them. Pulling twice with the same cursor
   * answers the same points again (the caller stores them idempotently).
   */
  pullMetrics(argument: _slipway_agent_v1_PullMetricsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_PullMetricsResponse__Output>): grpc.ClientUnaryCall;
  pullMetrics(argument: _slipway_agent_v1_PullMetricsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_PullMetricsResponse__Output>): grpc.ClientUnaryCall;
  pullMetrics(argument: _slipway_agent_v1_PullMetricsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_PullMetricsResponse__Output>): grpc.ClientUnaryCall;
  pullMetrics(argument: _slipway_agent_v1_PullMetricsRequest, callback: grpc.requestCallback<_slipway_agent_v1_PullMetricsResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface MetricsHandlers extends grpc.UntypedServiceImplementation {
  /**
   * The server's used and free CPU, memory and disk now (what `slipway-admin nodes` shows).
   */
  NodeUsage: grpc.handleUnaryCall<_slipway_agent_v1_NodeUsageRequest__Output, _slipway_agent_v1_NodeUsageResponse>;
  
  /**
   * Closed minutes after `after` (the caller's cursor), oldest first, at most `limit_minutes` of them. Asking with
   * `after` = N acknowledges every minute up to N: the agent forgets them. Pulling twice with the same cursor
   * answers the same points again (the caller stores them idempotently).
   */
  PullMetrics: grpc.handleUnaryCall<_slipway_agent_v1_PullMetricsRequest__Output, _slipway_agent_v1_PullMetricsResponse>;
  
}

export interface MetricsDefinition extends grpc.ServiceDefinition {
  NodeUsage: MethodDefinition<_slipway_agent_v1_NodeUsageRequest, _slipway_agent_v1_NodeUsageResponse, _slipway_agent_v1_NodeUsageRequest__Output, _slipway_agent_v1_NodeUsageResponse__Output>
  PullMetrics: MethodDefinition<_slipway_agent_v1_PullMetricsRequest, _slipway_agent_v1_PullMetricsResponse, _slipway_agent_v1_PullMetricsRequest__Output, _slipway_agent_v1_PullMetricsResponse__Output>
}
