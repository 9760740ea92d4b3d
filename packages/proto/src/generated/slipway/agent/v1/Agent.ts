// Original file: ../../proto/slipway/agent/v1/agent.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { ContainerEvent as _slipway_agent_v1_ContainerEvent, ContainerEvent__Output as _slipway_agent_v1_ContainerEvent__Output } from '../../../slipway/agent/v1/ContainerEvent';
import type { GetNodeInfoRequest as _slipway_agent_v1_GetNodeInfoRequest, GetNodeInfoRequest__Output as _slipway_agent_v1_GetNodeInfoRequest__Output } from '../../../slipway/agent/v1/GetNodeInfoRequest';
import type { ListManagedContainersRequest as _slipway_agent_v1_ListManagedContainersRequest, ListManagedContainersRequest__Output as _slipway_agent_v1_ListManagedContainersRequest__Output } from '../../../slipway/agent/v1/ListManagedContainersRequest';
import type { ListManagedContainersResponse as _slipway_agent_v1_ListManagedContainersResponse, ListManagedContainersResponse__Output as _slipway_agent_v1_ListManagedContainersResponse__Output } from '../../../slipway/agent/v1/ListManagedContainersResponse';
import type { LogChunk as _slipway_agent_v1_LogChunk, LogChunk__Output as _slipway_agent_v1_LogChunk__Output } from '../../../slipway/agent/v1/LogChunk';
import type { NodeInfo as _slipway_agent_v1_NodeInfo, NodeInfo__Output as _slipway_agent_v1_NodeInfo__Output } from '../../../slipway/agent/v1/NodeInfo';
import type { NoopRequest as _slipway_agent_v1_NoopRequest, NoopRequest__Output as _slipway_agent_v1_NoopRequest__Output } from '../../../slipway/agent/v1/NoopRequest';
import type { NoopResponse as _slipway_agent_v1_NoopResponse, NoopResponse__Output as _slipway_agent_v1_NoopResponse__Output } from '../../../slipway/agent/v1/NoopResponse';
import type { OperationProgress as _slipway_agent_v1_OperationProgress, OperationProgress__Output as _slipway_agent_v1_OperationProgress__Output } from '../../../slipway/agent/v1/OperationProgress';
import type { RemoveManagedContainersRequest as _slipway_agent_v1_RemoveManagedContainersRequest, RemoveManagedContainersRequest__Output as _slipway_agent_v1_RemoveManagedContainersRequest__Output } from '../../../slipway/agent/v1/RemoveManagedContainersRequest';
import type { RemoveManagedContainersResponse as _slipway_agent_v1_RemoveManagedContainersResponse, RemoveManagedContainersResponse__Output as _slipway_agent_v1_RemoveManagedContainersResponse__Output } from '../../../slipway/agent/v1/RemoveManagedContainersResponse';
import type { TailContainerLogsRequest as _slipway_agent_v1_TailContainerLogsRequest, TailContainerLogsRequest__Output as _slipway_agent_v1_TailContainerLogsRequest__Output } from '../../../slipway/agent/v1/TailContainerLogsRequest';
import type { UploadChunk as _slipway_agent_v1_UploadChunk, UploadChunk__Output as _slipway_agent_v1_UploadChunk__Output } from '../../../slipway/agent/v1/UploadChunk';
import type { UploadResult as _slipway_agent_v1_UploadResult, UploadResult__Output as _slipway_agent_v1_UploadResult__Output } from '../../../slipway/agent/v1/UploadResult';
import type { WatchContainerEventsRequest as _slipway_agent_v1_WatchContainerEventsRequest, WatchContainerEventsRequest__Output as _slipway_agent_v1_WatchContainerEventsRequest__Output } from '../../../slipway/agent/v1/WatchContainerEventsRequest';
import type { WatchOperationRequest as _slipway_agent_v1_WatchOperationRequest, WatchOperationRequest__Output as _slipway_agent_v1_WatchOperationRequest__Output } from '../../../slipway/agent/v1/WatchOperationRequest';

export interface AgentClient extends grpc.Client {
  /**
   * Identity and capacity of this server.
   */
  GetNodeInfo(argument: _slipway_agent_v1_GetNodeInfoRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_NodeInfo__Output>): grpc.ClientUnaryCall;
  GetNodeInfo(argument: _slipway_agent_v1_GetNodeInfoRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_NodeInfo__Output>): grpc.ClientUnaryCall;
  GetNodeInfo(argument: _slipway_agent_v1_GetNodeInfoRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_NodeInfo__Output>): grpc.ClientUnaryCall;
  GetNodeInfo(argument: _slipway_agent_v1_GetNodeInfoRequest, callback: grpc.requestCallback<_slipway_agent_v1_NodeInfo__Output>): grpc.ClientUnaryCall;
  /**
   * Identity and capacity of this server.
   */
  getNodeInfo(argument: _slipway_agent_v1_GetNodeInfoRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_NodeInfo__Output>): grpc.ClientUnaryCall;
  getNodeInfo(argument: _slipway_agent_v1_GetNodeInfoRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_NodeInfo__Output>): grpc.ClientUnaryCall;
  getNodeInfo(argument: _slipway_agent_v1_GetNodeInfoRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_NodeInfo__Output>): grpc.ClientUnaryCall;
  getNodeInfo(argument: _slipway_agent_v1_GetNodeInfoRequest, callback: grpc.requestCallback<_slipway_agent_v1_NodeInfo__Output>): grpc.ClientUnaryCall;
  
  /**
   * Containers carrying slipway labels, narrowed by label values (stopped ones included).
   */
  ListManagedContainers(argument: _slipway_agent_v1_ListManagedContainersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_ListManagedContainersResponse__Output>): grpc.ClientUnaryCall;
  ListManagedContainers(argument: _slipway_agent_v1_ListManagedContainersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_ListManagedContainersResponse__Output>): grpc.ClientUnaryCall;
  ListManagedContainers(argument: _slipway_agent_v1_ListManagedContainersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_ListManagedContainersResponse__Output>): grpc.ClientUnaryCall;
  ListManagedContainers(argument: _slipway_agent_v1_ListManagedContainersRequest, callback: grpc.requestCallback<_slipway_agent_v1_ListManagedContainersResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Containers carrying slipway labels, narrowed by label values (stopped ones included).
   */
  listManagedContainers(argument: _slipway_agent_v1_ListManagedContainersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_ListManagedContainersResponse__Output>): grpc.ClientUnaryCall;
  listManagedContainers(argument: _slipway_agent_v1_ListManagedContainersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_ListManagedContainersResponse__Output>): grpc.ClientUnaryCall;
  listManagedContainers(argument: _slipway_agent_v1_ListManagedContainersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_ListManagedContainersResponse__Output>): grpc.ClientUnaryCall;
  listManagedContainers(argument: _slipway_agent_v1_ListManagedContainersRequest, callback: grpc.requestCallback<_slipway_agent_v1_ListManagedContainersResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Does nothing, after an optional delay: the dispatch benchmark and the retry tests use it.
   */
  Noop(argument: _slipway_agent_v1_NoopRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_NoopResponse__Output>): grpc.ClientUnaryCall;
  Noop(argument: _slipway_agent_v1_NoopRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_NoopResponse__Output>): grpc.ClientUnaryCall;
  Noop(argument: _slipway_agent_v1_NoopRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_NoopResponse__Output>): grpc.ClientUnaryCall;
  Noop(argument: _slipway_agent_v1_NoopRequest, callback: grpc.requestCallback<_slipway_agent_v1_NoopResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Does nothing, after an optional delay: the dispatch benchmark and the retry tests use it.
   */
  noop(argument: _slipway_agent_v1_NoopRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_NoopResponse__Output>): grpc.ClientUnaryCall;
  noop(argument: _slipway_agent_v1_NoopRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_NoopResponse__Output>): grpc.ClientUnaryCall;
  noop(argument: _slipway_agent_v1_NoopRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_NoopResponse__Output>): grpc.ClientUnaryCall;
  noop(argument: _slipway_agent_v1_NoopRequest, callback: grpc.requestCallback<_slipway_agent_v1_NoopResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Removes containers by id; a container without slipway labels is never touched.
   */
  RemoveManagedContainers(argument: _slipway_agent_v1_RemoveManagedContainersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_RemoveManagedContainersResponse__Output>): grpc.ClientUnaryCall;
  RemoveManagedContainers(argument: _slipway_agent_v1_RemoveManagedContainersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_RemoveManagedContainersResponse__Output>): grpc.ClientUnaryCall;
  RemoveManagedContainers(argument: _slipway_agent_v1_RemoveManagedContainersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_RemoveManagedContainersResponse__Output>): grpc.ClientUnaryCall;
  RemoveManagedContainers(argument: _slipway_agent_v1_RemoveManagedContainersRequest, callback: grpc.requestCallback<_slipway_agent_v1_RemoveManagedContainersResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Removes containers by id; a container without slipway labels is never touched.
   */
  removeManagedContainers(argument: _slipway_agent_v1_RemoveManagedContainersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_RemoveManagedContainersResponse__Output>): grpc.ClientUnaryCall;
  removeManagedContainers(argument: _slipway_agent_v1_RemoveManagedContainersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_RemoveManagedContainersResponse__Output>): grpc.ClientUnaryCall;
  removeManagedContainers(argument: _slipway_agent_v1_RemoveManagedContainersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_RemoveManagedContainersResponse__Output>): grpc.ClientUnaryCall;
  removeManagedContainers(argument: _slipway_agent_v1_RemoveManagedContainersRequest, callback: grpc.requestCallback<_slipway_agent_v1_RemoveManagedContainersResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Log lines of a managed container (follow to keep the stream open).
   */
  TailContainerLogs(argument: _slipway_agent_v1_TailContainerLogsRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_LogChunk__Output>;
  TailContainerLogs(argument: _slipway_agent_v1_TailContainerLogsRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_LogChunk__Output>;
  /**
   * Log lines of a managed container (follow to keep the stream open).
   */
  tailContainerLogs(argument: _slipway_agent_v1_TailContainerLogsRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_LogChunk__Output>;
  tailContainerLogs(argument: _slipway_agent_v1_TailContainerLogsRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_LogChunk__Output>;
  
  /**
   * A file sent in chunks: the first message is the header, every later one carries data.
   */
  Upload(metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_UploadResult__Output>): grpc.ClientWritableStream<_slipway_agent_v1_UploadChunk>;
  Upload(metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_UploadResult__Output>): grpc.ClientWritableStream<_slipway_agent_v1_UploadChunk>;
  Upload(options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_UploadResult__Output>): grpc.ClientWritableStream<_slipway_agent_v1_UploadChunk>;
  Upload(callback: grpc.requestCallback<_slipway_agent_v1_UploadResult__Output>): grpc.ClientWritableStream<_slipway_agent_v1_UploadChunk>;
  /**
   * A file sent in chunks: the first message is the header, every later one carries data.
   */
  upload(metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_UploadResult__Output>): grpc.ClientWritableStream<_slipway_agent_v1_UploadChunk>;
  upload(metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_UploadResult__Output>): grpc.ClientWritableStream<_slipway_agent_v1_UploadChunk>;
  upload(options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_UploadResult__Output>): grpc.ClientWritableStream<_slipway_agent_v1_UploadChunk>;
  upload(callback: grpc.requestCallback<_slipway_agent_v1_UploadResult__Output>): grpc.ClientWritableStream<_slipway_agent_v1_UploadChunk>;
  
  /**
   * Exits of managed containers as they happen; the control plane keeps one subscription per server.
   */
  WatchContainerEvents(argument: _slipway_agent_v1_WatchContainerEventsRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_ContainerEvent__Output>;
  WatchContainerEvents(argument: _slipway_agent_v1_WatchContainerEventsRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_ContainerEvent__Output>;
  /**
   * Exits of managed containers as they happen; the control plane keeps one subscription per server.
   */
  watchContainerEvents(argument: _slipway_agent_v1_WatchContainerEventsRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_ContainerEvent__Output>;
  watchContainerEvents(argument: _slipway_agent_v1_WatchContainerEventsRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_ContainerEvent__Output>;
  
  /**
   * The journal state of one operation, then each change until it is finished.
   */
  WatchOperation(argument: _slipway_agent_v1_WatchOperationRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_OperationProgress__Output>;
  WatchOperation(argument: _slipway_agent_v1_WatchOperationRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_OperationProgress__Output>;
  /**
   * The journal state of one operation, then each change until it is finished.
   */
  watchOperation(argument: _slipway_agent_v1_WatchOperationRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_OperationProgress__Output>;
  watchOperation(argument: _slipway_agent_v1_WatchOperationRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_OperationProgress__Output>;
  
}

export interface AgentHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Identity and capacity of this server.
   */
  GetNodeInfo: grpc.handleUnaryCall<_slipway_agent_v1_GetNodeInfoRequest__Output, _slipway_agent_v1_NodeInfo>;
  
  /**
   * Containers carrying slipway labels, narrowed by label values (stopped ones included).
   */
  ListManagedContainers: grpc.handleUnaryCall<_slipway_agent_v1_ListManagedContainersRequest__Output, _slipway_agent_v1_ListManagedContainersResponse>;
  
  /**
   * Does nothing, after an optional delay: the dispatch benchmark and the retry tests use it.
   */
  Noop: grpc.handleUnaryCall<_slipway_agent_v1_NoopRequest__Output, _slipway_agent_v1_NoopResponse>;
  
  /**
   * Removes containers by id; a container without slipway labels is never touched.
   */
  RemoveManagedContainers: grpc.handleUnaryCall<_slipway_agent_v1_RemoveManagedContainersRequest__Output, _slipway_agent_v1_RemoveManagedContainersResponse>;
  
  /**
   * Log lines of a managed container (follow to keep the stream open).
   */
  TailContainerLogs: grpc.handleServerStreamingCall<_slipway_agent_v1_TailContainerLogsRequest__Output, _slipway_agent_v1_LogChunk>;
  
  /**
   * A file sent in chunks: the first message is the header, every later one carries data.
   */
  Upload: grpc.handleClientStreamingCall<_slipway_agent_v1_UploadChunk__Output, _slipway_agent_v1_UploadResult>;
  
  /**
   * Exits of managed containers as they happen; the control plane keeps one subscription per server.
   */
  WatchContainerEvents: grpc.handleServerStreamingCall<_slipway_agent_v1_WatchContainerEventsRequest__Output, _slipway_agent_v1_ContainerEvent>;
  
  /**
   * The journal state of one operation, then each change until it is finished.
   */
  WatchOperation: grpc.handleServerStreamingCall<_slipway_agent_v1_WatchOperationRequest__Output, _slipway_agent_v1_OperationProgress>;
  
}

export interface AgentDefinition extends grpc.ServiceDefinition {
  GetNodeInfo: MethodDefinition<_slipway_agent_v1_GetNodeInfoRequest, _slipway_agent_v1_NodeInfo, _slipway_agent_v1_GetNodeInfoRequest__Output, _slipway_agent_v1_NodeInfo__Output>
  ListManagedContainers: MethodDefinition<_slipway_agent_v1_ListManagedContainersRequest, _slipway_agent_v1_ListManagedContainersResponse, _slipway_agent_v1_ListManagedContainersRequest__Output, _slipway_agent_v1_ListManagedContainersResponse__Output>
  Noop: MethodDefinition<_slipway_agent_v1_NoopRequest, _slipway_agent_v1_NoopResponse, _slipway_agent_v1_NoopRequest__Output, _slipway_agent_v1_NoopResponse__Output>
  RemoveManagedContainers: MethodDefinition<_slipway_agent_v1_RemoveManagedContainersRequest, _slipway_agent_v1_RemoveManagedContainersResponse, _slipway_agent_v1_RemoveManagedContainersRequest__Output, _slipway_agent_v1_RemoveManagedContainersResponse__Output>
  TailContainerLogs: MethodDefinition<_slipway_agent_v1_TailContainerLogsRequest, _slipway_agent_v1_LogChunk, _slipway_agent_v1_TailContainerLogsRequest__Output, _slipway_agent_v1_LogChunk__Output>
  Upload: MethodDefinition<_slipway_agent_v1_UploadChunk, _slipway_agent_v1_UploadResult, _slipway_agent_v1_UploadChunk__Output, _slipway_agent_v1_UploadResult__Output>
  WatchContainerEvents: MethodDefinition<_slipway_agent_v1_WatchContainerEventsRequest, _slipway_agent_v1_ContainerEvent, _slipway_agent_v1_WatchContainerEventsRequest__Output, _slipway_agent_v1_ContainerEvent__Output>
  WatchOperation: MethodDefinition<_slipway_agent_v1_WatchOperationRequest, _slipway_agent_v1_OperationProgress, _slipway_agent_v1_WatchOperationRequest__Output, _slipway_agent_v1_OperationProgress__Output>
}
