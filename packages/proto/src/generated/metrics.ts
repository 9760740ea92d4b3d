import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { MetricPoint as _slipway_agent_v1_MetricPoint, MetricPoint__Output as _slipway_agent_v1_MetricPoint__Output } from './slipway/agent/v1/MetricPoint';
import type { MetricsClient as _slipway_agent_v1_MetricsClient, MetricsDefinition as _slipway_agent_v1_MetricsDefinition } from './slipway/agent/v1/Metrics';
import type { NodeUsageRequest as _slipway_agent_v1_NodeUsageRequest, NodeUsageRequest__Output as _slipway_agent_v1_NodeUsageRequest__Output } from './slipway/agent/v1/NodeUsageRequest';
import type { NodeUsageResponse as _slipway_agent_v1_NodeUsageResponse, NodeUsageResponse__Output as _slipway_agent_v1_NodeUsageResponse__Output } from './slipway/agent/v1/NodeUsageResponse';
import type { PullMetricsRequest as _slipway_agent_v1_PullMetricsRequest, PullMetricsRequest__Output as _slipway_agent_v1_PullMetricsRequest__Output } from './slipway/agent/v1/PullMetricsRequest';
import type { PullMetricsResponse as _slipway_agent_v1_PullMetricsResponse, PullMetricsResponse__Output as _slipway_agent_v1_PullMetricsResponse__Output } from './slipway/agent/v1/PullMetricsResponse';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  slipway: {
    agent: {
      v1: {
        MetricPoint: MessageTypeDefinition<_slipway_agent_v1_MetricPoint, _slipway_agent_v1_MetricPoint__Output>
        Metrics: SubtypeConstructor<typeof grpc.Client, _slipway_agent_v1_MetricsClient> & { service: _slipway_agent_v1_MetricsDefinition }
        NodeUsageRequest: MessageTypeDefinition<_slipway_agent_v1_NodeUsageRequest, _slipway_agent_v1_NodeUsageRequest__Output>
        NodeUsageResponse: MessageTypeDefinition<_slipway_agent_v1_NodeUsageResponse, _slipway_agent_v1_NodeUsageResponse__Output>
        PullMetricsRequest: MessageTypeDefinition<_slipway_agent_v1_PullMetricsRequest, _slipway_agent_v1_PullMetricsRequest__Output>
        PullMetricsResponse: MessageTypeDefinition<_slipway_agent_v1_PullMetricsResponse, _slipway_agent_v1_PullMetricsResponse__Output>
      }
    }
  }
}

