// Original file: ../../proto/slipway/agent/v1/agent.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AppPowerRequest as _slipway_agent_v1_AppPowerRequest, AppPowerRequest__Output as _slipway_agent_v1_AppPowerRequest__Output } from '../../../slipway/agent/v1/AppPowerRequest';
import type { AppPowerResponse as _slipway_agent_v1_AppPowerResponse, AppPowerResponse__Output as _slipway_agent_v1_AppPowerResponse__Output } from '../../../slipway/agent/v1/AppPowerResponse';
import type { ContainerEvent as _slipway_agent_v1_ContainerEvent, ContainerEvent__Output as _slipway_agent_v1_ContainerEvent__Output } from '../../../slipway/agent/v1/ContainerEvent';
import type { DeployEvent as _slipway_agent_v1_DeployEvent, DeployEvent__Output as _slipway_agent_v1_DeployEvent__Output } from '../../../slipway/agent/v1/DeployEvent';
import type { FolderUsageRequest as _slipway_agent_v1_FolderUsageRequest, FolderUsageRequest__Output as _slipway_agent_v1_FolderUsageRequest__Output } from '../../../slipway/agent/v1/FolderUsageRequest';
import type { FolderUsageResponse as _slipway_agent_v1_FolderUsageResponse, FolderUsageResponse__Output as _slipway_agent_v1_FolderUsageResponse__Output } from '../../../slipway/agent/v1/FolderUsageResponse';
import type { GetNodeInfoRequest as _slipway_agent_v1_GetNodeInfoRequest, GetNodeInfoRequest__Output as _slipway_agent_v1_GetNodeInfoRequest__Output } from '../../../slipway/agent/v1/GetNodeInfoRequest';
import type { ListManagedContainersRequest as _slipway_agent_v1_ListManagedContainersRequest, ListManagedContainersRequest__Output as _slipway_agent_v1_ListManagedContainersRequest__Output } from '../../../slipway/agent/v1/ListManagedContainersRequest';
import type { ListManagedContainersResponse as _slipway_agent_v1_ListManagedContainersResponse, ListManagedContainersResponse__Output as _slipway_agent_v1_ListManagedContainersResponse__Output } from '../../../slipway/agent/v1/ListManagedContainersResponse';
import type { LogChunk as _slipway_agent_v1_LogChunk, LogChunk__Output as _slipway_agent_v1_LogChunk__Output } from '../../../slipway/agent/v1/LogChunk';
import type { NodeInfo as _slipway_agent_v1_NodeInfo, NodeInfo__Output as _slipway_agent_v1_NodeInfo__Output } from '../../../slipway/agent/v1/NodeInfo';
import type { NoopRequest as _slipway_agent_v1_NoopRequest, NoopRequest__Output as _slipway_agent_v1_NoopRequest__Output } from '../../../slipway/agent/v1/NoopRequest';
import type { NoopResponse as _slipway_agent_v1_NoopResponse, NoopResponse__Output as _slipway_agent_v1_NoopResponse__Output } from '../../../slipway/agent/v1/NoopResponse';
import type { PrepareImageRequest as _slipway_agent_v1_PrepareImageRequest, PrepareImageRequest__Output as _slipway_agent_v1_PrepareImageRequest__Output } from '../../../slipway/agent/v1/PrepareImageRequest';
import type { RemoveAppRequest as _slipway_agent_v1_RemoveAppRequest, RemoveAppRequest__Output as _slipway_agent_v1_RemoveAppRequest__Output } from '../../../slipway/agent/v1/RemoveAppRequest';
import type { RemoveAppResponse as _slipway_agent_v1_RemoveAppResponse, RemoveAppResponse__Output as _slipway_agent_v1_RemoveAppResponse__Output } from '../../../slipway/agent/v1/RemoveAppResponse';
import type { RemoveManagedContainersRequest as _slipway_agent_v1_RemoveManagedContainersRequest, RemoveManagedContainersRequest__Output as _slipway_agent_v1_RemoveManagedContainersRequest__Output } from '../../../slipway/agent/v1/RemoveManagedContainersRequest';
import type { RemoveManagedContainersResponse as _slipway_agent_v1_RemoveManagedContainersResponse, RemoveManagedContainersResponse__Output as _slipway_agent_v1_RemoveManagedContainersResponse__Output } from '../../../slipway/agent/v1/RemoveManagedContainersResponse';
import type { RolloutAppRequest as _slipway_agent_v1_RolloutAppRequest, RolloutAppRequest__Output as _slipway_agent_v1_RolloutAppRequest__Output } from '../../../slipway/agent/v1/RolloutAppRequest';
import type { SyncRoutesRequest as _slipway_agent_v1_SyncRoutesRequest, SyncRoutesRequest__Output as _slipway_agent_v1_SyncRoutesRequest__Output } from '../../../slipway/agent/v1/SyncRoutesRequest';
import type { SyncRoutesResponse as _slipway_agent_v1_SyncRoutesResponse, SyncRoutesResponse__Output as _slipway_agent_v1_SyncRoutesResponse__Output } from '../../../slipway/agent/v1/SyncRoutesResponse';
import type { TailContainerLogsRequest as _slipway_agent_v1_TailContainerLogsRequest, TailContainerLogsRequest__Output as _slipway_agent_v1_TailContainerLogsRequest__Output } from '../../../slipway/agent/v1/TailContainerLogsRequest';
import type { WatchContainerEventsRequest as _slipway_agent_v1_WatchContainerEventsRequest, WatchContainerEventsRequest__Output as _slipway_agent_v1_WatchContainerEventsRequest__Output } from '../../../slipway/agent/v1/WatchContainerEventsRequest';

export interface AgentClient extends grpc.Client {
  /**
   * start, stop or restart an app's current container, and put back or take offline its route.
   */
  AppPower(argument: _slipway_agent_v1_AppPowerRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_AppPowerResponse__Output>): grpc.ClientUnaryCall;
  AppPower(argument: _slipway_agent_v1_AppPowerRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_AppPowerResponse__Output>): grpc.ClientUnaryCall;
  AppPower(argument: _slipway_agent_v1_AppPowerRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_AppPowerResponse__Output>): grpc.ClientUnaryCall;
  AppPower(argument: _slipway_agent_v1_AppPowerRequest, callback: grpc.requestCallback<_slipway_agent_v1_AppPowerResponse__Output>): grpc.ClientUnaryCall;
  /**
   * start, stop or restart an app's current container, and put back or take offline its route.
   */
  appPower(argument: _slipway_agent_v1_AppPowerRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_AppPowerResponse__Output>): grpc.ClientUnaryCall;
  appPower(argument: _slipway_agent_v1_AppPowerRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_AppPowerResponse__Output>): grpc.ClientUnaryCall;
  appPower(argument: _slipway_agent_v1_AppPowerRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_AppPowerResponse__Output>): grpc.ClientUnaryCall;
  appPower(argument: _slipway_agent_v1_AppPowerRequest, callback: grpc.requestCallback<_slipway_agent_v1_AppPowerResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Size and usage of apps' project folders (statfs of each folder's own file system, no scan).
   */
  FolderUsage(argument: _slipway_agent_v1_FolderUsageRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_FolderUsageResponse__Output>): grpc.ClientUnaryCall;
  FolderUsage(argument: _slipway_agent_v1_FolderUsageRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_FolderUsageResponse__Output>): grpc.ClientUnaryCall;
  FolderUsage(argument: _slipway_agent_v1_FolderUsageRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_FolderUsageResponse__Output>): grpc.ClientUnaryCall;
  FolderUsage(argument: _slipway_agent_v1_FolderUsageRequest, callback: grpc.requestCallback<_slipway_agent_v1_FolderUsageResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Size and usage of apps' project folders (statfs of each folder's own file system, no scan).
   */
  folderUsage(argument: _slipway_agent_v1_FolderUsageRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_FolderUsageResponse__Output>): grpc.ClientUnaryCall;
  folderUsage(argument: _slipway_agent_v1_FolderUsageRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_FolderUsageResponse__Output>): grpc.ClientUnaryCall;
  folderUsage(argument: _slipway_agent_v1_FolderUsageRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_FolderUsageResponse__Output>): grpc.ClientUnaryCall;
  folderUsage(argument: _slipway_agent_v1_FolderUsageRequest, callback: grpc.requestCallback<_slipway_agent_v1_FolderUsageResponse__Output>): grpc.ClientUnaryCall;
  
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
   * The "build" phase of an image app: pulls the image (a locally present one is used when no registry
   * answers) and tags it for the deployment. Streams log lines, then the result.
   */
  PrepareImage(argument: _slipway_agent_v1_PrepareImageRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_DeployEvent__Output>;
  PrepareImage(argument: _slipway_agent_v1_PrepareImageRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_DeployEvent__Output>;
  /**
   * The "build" phase of an image app: pulls the image (a locally present one is used when no registry
   * answers) and tags it for the deployment. Streams log lines, then the result.
   */
  prepareImage(argument: _slipway_agent_v1_PrepareImageRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_DeployEvent__Output>;
  prepareImage(argument: _slipway_agent_v1_PrepareImageRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_DeployEvent__Output>;
  
  /**
   * Removes every container, image tag, route and the project folder of a deleted app.
   */
  RemoveApp(argument: _slipway_agent_v1_RemoveAppRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_RemoveAppResponse__Output>): grpc.ClientUnaryCall;
  RemoveApp(argument: _slipway_agent_v1_RemoveAppRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_RemoveAppResponse__Output>): grpc.ClientUnaryCall;
  RemoveApp(argument: _slipway_agent_v1_RemoveAppRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_RemoveAppResponse__Output>): grpc.ClientUnaryCall;
  RemoveApp(argument: _slipway_agent_v1_RemoveAppRequest, callback: grpc.requestCallback<_slipway_agent_v1_RemoveAppResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Removes every container, image tag, route and the project folder of a deleted app.
   */
  removeApp(argument: _slipway_agent_v1_RemoveAppRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_RemoveAppResponse__Output>): grpc.ClientUnaryCall;
  removeApp(argument: _slipway_agent_v1_RemoveAppRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_RemoveAppResponse__Output>): grpc.ClientUnaryCall;
  removeApp(argument: _slipway_agent_v1_RemoveAppRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_RemoveAppResponse__Output>): grpc.ClientUnaryCall;
  removeApp(argument: _slipway_agent_v1_RemoveAppRequest, callback: grpc.requestCallback<_slipway_agent_v1_RemoveAppResponse__Output>): grpc.ClientUnaryCall;
  
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
   * Rolls a deployment out: seeds the project folder when the image changed, starts the container on the
   * workspace network, waits until it answers on its port, moves the route, then stops the previous
   * container (SIGTERM, grace period). If the new container never answers, the old one stays live.
   */
  RolloutApp(argument: _slipway_agent_v1_RolloutAppRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_DeployEvent__Output>;
  RolloutApp(argument: _slipway_agent_v1_RolloutAppRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_DeployEvent__Output>;
  /**
   * Rolls a deployment out: seeds the project folder when the image changed, starts the container on the
   * workspace network, waits until it answers on its port, moves the route, then stops the previous
   * container (SIGTERM, grace period). If the new container never answers, the old one stays live.
   */
  rolloutApp(argument: _slipway_agent_v1_RolloutAppRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_DeployEvent__Output>;
  rolloutApp(argument: _slipway_agent_v1_RolloutAppRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_DeployEvent__Output>;
  
  /**
   * The routes this server should serve: missing ones are added, app routes not listed are removed.
   */
  SyncRoutes(argument: _slipway_agent_v1_SyncRoutesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_SyncRoutesResponse__Output>): grpc.ClientUnaryCall;
  SyncRoutes(argument: _slipway_agent_v1_SyncRoutesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_SyncRoutesResponse__Output>): grpc.ClientUnaryCall;
  SyncRoutes(argument: _slipway_agent_v1_SyncRoutesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_SyncRoutesResponse__Output>): grpc.ClientUnaryCall;
  SyncRoutes(argument: _slipway_agent_v1_SyncRoutesRequest, callback: grpc.requestCallback<_slipway_agent_v1_SyncRoutesResponse__Output>): grpc.ClientUnaryCall;
  /**
   * The routes this server should serve: missing ones are added, app routes not listed are removed.
   */
  syncRoutes(argument: _slipway_agent_v1_SyncRoutesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_SyncRoutesResponse__Output>): grpc.ClientUnaryCall;
  syncRoutes(argument: _slipway_agent_v1_SyncRoutesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_SyncRoutesResponse__Output>): grpc.ClientUnaryCall;
  syncRoutes(argument: _slipway_agent_v1_SyncRoutesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_SyncRoutesResponse__Output>): grpc.ClientUnaryCall;
  syncRoutes(argument: _slipway_agent_v1_SyncRoutesRequest, callback: grpc.requestCallback<_slipway_agent_v1_SyncRoutesResponse__Output>): grpc.ClientUnaryCall;
  
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
   * Exits of managed containers as they happen; the control plane keeps one subscription per server.
   */
  WatchContainerEvents(argument: _slipway_agent_v1_WatchContainerEventsRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_ContainerEvent__Output>;
  WatchContainerEvents(argument: _slipway_agent_v1_WatchContainerEventsRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_ContainerEvent__Output>;
  /**
   * Exits of managed containers as they happen; the control plane keeps one subscription per server.
   */
  watchContainerEvents(argument: _slipway_agent_v1_WatchContainerEventsRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_ContainerEvent__Output>;
  watchContainerEvents(argument: _slipway_agent_v1_WatchContainerEventsRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_slipway_agent_v1_ContainerEvent__Output>;
  
}

export interface AgentHandlers extends grpc.UntypedServiceImplementation {
  /**
   * start, stop or restart an app's current container, and put back or take offline its route.
   */
  AppPower: grpc.handleUnaryCall<_slipway_agent_v1_AppPowerRequest__Output, _slipway_agent_v1_AppPowerResponse>;
  
  /**
   * Size and usage of apps' project folders (statfs of each folder's own file system, no scan).
   */
  FolderUsage: grpc.handleUnaryCall<_slipway_agent_v1_FolderUsageRequest__Output, _slipway_agent_v1_FolderUsageResponse>;
  
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
   * The "build" phase of an image app: pulls the image (a locally present one is used when no registry
   * answers) and tags it for the deployment. Streams log lines, then the result.
   */
  PrepareImage: grpc.handleServerStreamingCall<_slipway_agent_v1_PrepareImageRequest__Output, _slipway_agent_v1_DeployEvent>;
  
  /**
   * Removes every container, image tag, route and the project folder of a deleted app.
   */
  RemoveApp: grpc.handleUnaryCall<_slipway_agent_v1_RemoveAppRequest__Output, _slipway_agent_v1_RemoveAppResponse>;
  
  /**
   * Removes containers by id; a container without slipway labels is never touched.
   */
  RemoveManagedContainers: grpc.handleUnaryCall<_slipway_agent_v1_RemoveManagedContainersRequest__Output, _slipway_agent_v1_RemoveManagedContainersResponse>;
  
  /**
   * Rolls a deployment out: seeds the project folder when the image changed, starts the container on the
   * workspace network, waits until it answers on its port, moves the route, then stops the previous
   * container (SIGTERM, grace period). If the new container never answers, the old one stays live.
   */
  RolloutApp: grpc.handleServerStreamingCall<_slipway_agent_v1_RolloutAppRequest__Output, _slipway_agent_v1_DeployEvent>;
  
  /**
   * The routes this server should serve: missing ones are added, app routes not listed are removed.
   */
  SyncRoutes: grpc.handleUnaryCall<_slipway_agent_v1_SyncRoutesRequest__Output, _slipway_agent_v1_SyncRoutesResponse>;
  
  /**
   * Log lines of a managed container (follow to keep the stream open).
   */
  TailContainerLogs: grpc.handleServerStreamingCall<_slipway_agent_v1_TailContainerLogsRequest__Output, _slipway_agent_v1_LogChunk>;
  
  /**
   * Exits of managed containers as they happen; the control plane keeps one subscription per server.
   */
  WatchContainerEvents: grpc.handleServerStreamingCall<_slipway_agent_v1_WatchContainerEventsRequest__Output, _slipway_agent_v1_ContainerEvent>;
  
}

export interface AgentDefinition extends grpc.ServiceDefinition {
  AppPower: MethodDefinition<_slipway_agent_v1_AppPowerRequest, _slipway_agent_v1_AppPowerResponse, _slipway_agent_v1_AppPowerRequest__Output, _slipway_agent_v1_AppPowerResponse__Output>
  FolderUsage: MethodDefinition<_slipway_agent_v1_FolderUsageRequest, _slipway_agent_v1_FolderUsageResponse, _slipway_agent_v1_FolderUsageRequest__Output, _slipway_agent_v1_FolderUsageResponse__Output>
  GetNodeInfo: MethodDefinition<_slipway_agent_v1_GetNodeInfoRequest, _slipway_agent_v1_NodeInfo, _slipway_agent_v1_GetNodeInfoRequest__Output, _slipway_agent_v1_NodeInfo__Output>
  ListManagedContainers: MethodDefinition<_slipway_agent_v1_ListManagedContainersRequest, _slipway_agent_v1_ListManagedContainersResponse, _slipway_agent_v1_ListManagedContainersRequest__Output, _slipway_agent_v1_ListManagedContainersResponse__Output>
  Noop: MethodDefinition<_slipway_agent_v1_NoopRequest, _slipway_agent_v1_NoopResponse, _slipway_agent_v1_NoopRequest__Output, _slipway_agent_v1_NoopResponse__Output>
  PrepareImage: MethodDefinition<_slipway_agent_v1_PrepareImageRequest, _slipway_agent_v1_DeployEvent, _slipway_agent_v1_PrepareImageRequest__Output, _slipway_agent_v1_DeployEvent__Output>
  RemoveApp: MethodDefinition<_slipway_agent_v1_RemoveAppRequest, _slipway_agent_v1_RemoveAppResponse, _slipway_agent_v1_RemoveAppRequest__Output, _slipway_agent_v1_RemoveAppResponse__Output>
  RemoveManagedContainers: MethodDefinition<_slipway_agent_v1_RemoveManagedContainersRequest, _slipway_agent_v1_RemoveManagedContainersResponse, _slipway_agent_v1_RemoveManagedContainersRequest__Output, _slipway_agent_v1_RemoveManagedContainersResponse__Output>
  RolloutApp: MethodDefinition<_slipway_agent_v1_RolloutAppRequest, _slipway_agent_v1_DeployEvent, _slipway_agent_v1_RolloutAppRequest__Output, _slipway_agent_v1_DeployEvent__Output>
  SyncRoutes: MethodDefinition<_slipway_agent_v1_SyncRoutesRequest, _slipway_agent_v1_SyncRoutesResponse, _slipway_agent_v1_SyncRoutesRequest__Output, _slipway_agent_v1_SyncRoutesResponse__Output>
  TailContainerLogs: MethodDefinition<_slipway_agent_v1_TailContainerLogsRequest, _slipway_agent_v1_LogChunk, _slipway_agent_v1_TailContainerLogsRequest__Output, _slipway_agent_v1_LogChunk__Output>
  WatchContainerEvents: MethodDefinition<_slipway_agent_v1_WatchContainerEventsRequest, _slipway_agent_v1_ContainerEvent, _slipway_agent_v1_WatchContainerEventsRequest__Output, _slipway_agent_v1_ContainerEvent__Output>
}
