import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { AgentClient as _slipway_agent_v1_AgentClient, AgentDefinition as _slipway_agent_v1_AgentDefinition } from './slipway/agent/v1/Agent';
import type { AppFolderUsage as _slipway_agent_v1_AppFolderUsage, AppFolderUsage__Output as _slipway_agent_v1_AppFolderUsage__Output } from './slipway/agent/v1/AppFolderUsage';
import type { AppPowerRequest as _slipway_agent_v1_AppPowerRequest, AppPowerRequest__Output as _slipway_agent_v1_AppPowerRequest__Output } from './slipway/agent/v1/AppPowerRequest';
import type { AppPowerResponse as _slipway_agent_v1_AppPowerResponse, AppPowerResponse__Output as _slipway_agent_v1_AppPowerResponse__Output } from './slipway/agent/v1/AppPowerResponse';
import type { AppRoute as _slipway_agent_v1_AppRoute, AppRoute__Output as _slipway_agent_v1_AppRoute__Output } from './slipway/agent/v1/AppRoute';
import type { ContainerEvent as _slipway_agent_v1_ContainerEvent, ContainerEvent__Output as _slipway_agent_v1_ContainerEvent__Output } from './slipway/agent/v1/ContainerEvent';
import type { DeployEvent as _slipway_agent_v1_DeployEvent, DeployEvent__Output as _slipway_agent_v1_DeployEvent__Output } from './slipway/agent/v1/DeployEvent';
import type { DeployResult as _slipway_agent_v1_DeployResult, DeployResult__Output as _slipway_agent_v1_DeployResult__Output } from './slipway/agent/v1/DeployResult';
import type { DiskInfo as _slipway_agent_v1_DiskInfo, DiskInfo__Output as _slipway_agent_v1_DiskInfo__Output } from './slipway/agent/v1/DiskInfo';
import type { FolderUsageRequest as _slipway_agent_v1_FolderUsageRequest, FolderUsageRequest__Output as _slipway_agent_v1_FolderUsageRequest__Output } from './slipway/agent/v1/FolderUsageRequest';
import type { FolderUsageResponse as _slipway_agent_v1_FolderUsageResponse, FolderUsageResponse__Output as _slipway_agent_v1_FolderUsageResponse__Output } from './slipway/agent/v1/FolderUsageResponse';
import type { GetNodeInfoRequest as _slipway_agent_v1_GetNodeInfoRequest, GetNodeInfoRequest__Output as _slipway_agent_v1_GetNodeInfoRequest__Output } from './slipway/agent/v1/GetNodeInfoRequest';
import type { LabelFilter as _slipway_agent_v1_LabelFilter, LabelFilter__Output as _slipway_agent_v1_LabelFilter__Output } from './slipway/agent/v1/LabelFilter';
import type { ListManagedContainersRequest as _slipway_agent_v1_ListManagedContainersRequest, ListManagedContainersRequest__Output as _slipway_agent_v1_ListManagedContainersRequest__Output } from './slipway/agent/v1/ListManagedContainersRequest';
import type { ListManagedContainersResponse as _slipway_agent_v1_ListManagedContainersResponse, ListManagedContainersResponse__Output as _slipway_agent_v1_ListManagedContainersResponse__Output } from './slipway/agent/v1/ListManagedContainersResponse';
import type { ListWorkspaceNetworksRequest as _slipway_agent_v1_ListWorkspaceNetworksRequest, ListWorkspaceNetworksRequest__Output as _slipway_agent_v1_ListWorkspaceNetworksRequest__Output } from './slipway/agent/v1/ListWorkspaceNetworksRequest';
import type { ListWorkspaceNetworksResponse as _slipway_agent_v1_ListWorkspaceNetworksResponse, ListWorkspaceNetworksResponse__Output as _slipway_agent_v1_ListWorkspaceNetworksResponse__Output } from './slipway/agent/v1/ListWorkspaceNetworksResponse';
import type { LogChunk as _slipway_agent_v1_LogChunk, LogChunk__Output as _slipway_agent_v1_LogChunk__Output } from './slipway/agent/v1/LogChunk';
import type { ManagedContainer as _slipway_agent_v1_ManagedContainer, ManagedContainer__Output as _slipway_agent_v1_ManagedContainer__Output } from './slipway/agent/v1/ManagedContainer';
import type { NodeInfo as _slipway_agent_v1_NodeInfo, NodeInfo__Output as _slipway_agent_v1_NodeInfo__Output } from './slipway/agent/v1/NodeInfo';
import type { NoopRequest as _slipway_agent_v1_NoopRequest, NoopRequest__Output as _slipway_agent_v1_NoopRequest__Output } from './slipway/agent/v1/NoopRequest';
import type { NoopResponse as _slipway_agent_v1_NoopResponse, NoopResponse__Output as _slipway_agent_v1_NoopResponse__Output } from './slipway/agent/v1/NoopResponse';
import type { PrepareImageRequest as _slipway_agent_v1_PrepareImageRequest, PrepareImageRequest__Output as _slipway_agent_v1_PrepareImageRequest__Output } from './slipway/agent/v1/PrepareImageRequest';
import type { RemoteRoute as _slipway_agent_v1_RemoteRoute, RemoteRoute__Output as _slipway_agent_v1_RemoteRoute__Output } from './slipway/agent/v1/RemoteRoute';
import type { RemoveAppRequest as _slipway_agent_v1_RemoveAppRequest, RemoveAppRequest__Output as _slipway_agent_v1_RemoveAppRequest__Output } from './slipway/agent/v1/RemoveAppRequest';
import type { RemoveAppResponse as _slipway_agent_v1_RemoveAppResponse, RemoveAppResponse__Output as _slipway_agent_v1_RemoveAppResponse__Output } from './slipway/agent/v1/RemoveAppResponse';
import type { RemoveManagedContainersRequest as _slipway_agent_v1_RemoveManagedContainersRequest, RemoveManagedContainersRequest__Output as _slipway_agent_v1_RemoveManagedContainersRequest__Output } from './slipway/agent/v1/RemoveManagedContainersRequest';
import type { RemoveManagedContainersResponse as _slipway_agent_v1_RemoveManagedContainersResponse, RemoveManagedContainersResponse__Output as _slipway_agent_v1_RemoveManagedContainersResponse__Output } from './slipway/agent/v1/RemoveManagedContainersResponse';
import type { RemoveWorkspaceRequest as _slipway_agent_v1_RemoveWorkspaceRequest, RemoveWorkspaceRequest__Output as _slipway_agent_v1_RemoveWorkspaceRequest__Output } from './slipway/agent/v1/RemoveWorkspaceRequest';
import type { RemoveWorkspaceResponse as _slipway_agent_v1_RemoveWorkspaceResponse, RemoveWorkspaceResponse__Output as _slipway_agent_v1_RemoveWorkspaceResponse__Output } from './slipway/agent/v1/RemoveWorkspaceResponse';
import type { RolloutAppRequest as _slipway_agent_v1_RolloutAppRequest, RolloutAppRequest__Output as _slipway_agent_v1_RolloutAppRequest__Output } from './slipway/agent/v1/RolloutAppRequest';
import type { SyncRoutesRequest as _slipway_agent_v1_SyncRoutesRequest, SyncRoutesRequest__Output as _slipway_agent_v1_SyncRoutesRequest__Output } from './slipway/agent/v1/SyncRoutesRequest';
import type { SyncRoutesResponse as _slipway_agent_v1_SyncRoutesResponse, SyncRoutesResponse__Output as _slipway_agent_v1_SyncRoutesResponse__Output } from './slipway/agent/v1/SyncRoutesResponse';
import type { TailContainerLogsRequest as _slipway_agent_v1_TailContainerLogsRequest, TailContainerLogsRequest__Output as _slipway_agent_v1_TailContainerLogsRequest__Output } from './slipway/agent/v1/TailContainerLogsRequest';
import type { WatchContainerEventsRequest as _slipway_agent_v1_WatchContainerEventsRequest, WatchContainerEventsRequest__Output as _slipway_agent_v1_WatchContainerEventsRequest__Output } from './slipway/agent/v1/WatchContainerEventsRequest';
import type { WorkspaceNetwork as _slipway_agent_v1_WorkspaceNetwork, WorkspaceNetwork__Output as _slipway_agent_v1_WorkspaceNetwork__Output } from './slipway/agent/v1/WorkspaceNetwork';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  slipway: {
    agent: {
      v1: {
        Agent: SubtypeConstructor<typeof grpc.Client, _slipway_agent_v1_AgentClient> & { service: _slipway_agent_v1_AgentDefinition }
        AppFolderUsage: MessageTypeDefinition<_slipway_agent_v1_AppFolderUsage, _slipway_agent_v1_AppFolderUsage__Output>
        AppPowerRequest: MessageTypeDefinition<_slipway_agent_v1_AppPowerRequest, _slipway_agent_v1_AppPowerRequest__Output>
        AppPowerResponse: MessageTypeDefinition<_slipway_agent_v1_AppPowerResponse, _slipway_agent_v1_AppPowerResponse__Output>
        AppRoute: MessageTypeDefinition<_slipway_agent_v1_AppRoute, _slipway_agent_v1_AppRoute__Output>
        ContainerEvent: MessageTypeDefinition<_slipway_agent_v1_ContainerEvent, _slipway_agent_v1_ContainerEvent__Output>
        DeployEvent: MessageTypeDefinition<_slipway_agent_v1_DeployEvent, _slipway_agent_v1_DeployEvent__Output>
        DeployResult: MessageTypeDefinition<_slipway_agent_v1_DeployResult, _slipway_agent_v1_DeployResult__Output>
        DiskInfo: MessageTypeDefinition<_slipway_agent_v1_DiskInfo, _slipway_agent_v1_DiskInfo__Output>
        FolderUsageRequest: MessageTypeDefinition<_slipway_agent_v1_FolderUsageRequest, _slipway_agent_v1_FolderUsageRequest__Output>
        FolderUsageResponse: MessageTypeDefinition<_slipway_agent_v1_FolderUsageResponse, _slipway_agent_v1_FolderUsageResponse__Output>
        GetNodeInfoRequest: MessageTypeDefinition<_slipway_agent_v1_GetNodeInfoRequest, _slipway_agent_v1_GetNodeInfoRequest__Output>
        LabelFilter: MessageTypeDefinition<_slipway_agent_v1_LabelFilter, _slipway_agent_v1_LabelFilter__Output>
        ListManagedContainersRequest: MessageTypeDefinition<_slipway_agent_v1_ListManagedContainersRequest, _slipway_agent_v1_ListManagedContainersRequest__Output>
        ListManagedContainersResponse: MessageTypeDefinition<_slipway_agent_v1_ListManagedContainersResponse, _slipway_agent_v1_ListManagedContainersResponse__Output>
        ListWorkspaceNetworksRequest: MessageTypeDefinition<_slipway_agent_v1_ListWorkspaceNetworksRequest, _slipway_agent_v1_ListWorkspaceNetworksRequest__Output>
        ListWorkspaceNetworksResponse: MessageTypeDefinition<_slipway_agent_v1_ListWorkspaceNetworksResponse, _slipway_agent_v1_ListWorkspaceNetworksResponse__Output>
        LogChunk: MessageTypeDefinition<_slipway_agent_v1_LogChunk, _slipway_agent_v1_LogChunk__Output>
        ManagedContainer: MessageTypeDefinition<_slipway_agent_v1_ManagedContainer, _slipway_agent_v1_ManagedContainer__Output>
        NodeInfo: MessageTypeDefinition<_slipway_agent_v1_NodeInfo, _slipway_agent_v1_NodeInfo__Output>
        NoopRequest: MessageTypeDefinition<_slipway_agent_v1_NoopRequest, _slipway_agent_v1_NoopRequest__Output>
        NoopResponse: MessageTypeDefinition<_slipway_agent_v1_NoopResponse, _slipway_agent_v1_NoopResponse__Output>
        PrepareImageRequest: MessageTypeDefinition<_slipway_agent_v1_PrepareImageRequest, _slipway_agent_v1_PrepareImageRequest__Output>
        RemoteRoute: MessageTypeDefinition<_slipway_agent_v1_RemoteRoute, _slipway_agent_v1_RemoteRoute__Output>
        RemoveAppRequest: MessageTypeDefinition<_slipway_agent_v1_RemoveAppRequest, _slipway_agent_v1_RemoveAppRequest__Output>
        RemoveAppResponse: MessageTypeDefinition<_slipway_agent_v1_RemoveAppResponse, _slipway_agent_v1_RemoveAppResponse__Output>
        RemoveManagedContainersRequest: MessageTypeDefinition<_slipway_agent_v1_RemoveManagedContainersRequest, _slipway_agent_v1_RemoveManagedContainersRequest__Output>
        RemoveManagedContainersResponse: MessageTypeDefinition<_slipway_agent_v1_RemoveManagedContainersResponse, _slipway_agent_v1_RemoveManagedContainersResponse__Output>
        RemoveWorkspaceRequest: MessageTypeDefinition<_slipway_agent_v1_RemoveWorkspaceRequest, _slipway_agent_v1_RemoveWorkspaceRequest__Output>
        RemoveWorkspaceResponse: MessageTypeDefinition<_slipway_agent_v1_RemoveWorkspaceResponse, _slipway_agent_v1_RemoveWorkspaceResponse__Output>
        RolloutAppRequest: MessageTypeDefinition<_slipway_agent_v1_RolloutAppRequest, _slipway_agent_v1_RolloutAppRequest__Output>
        SyncRoutesRequest: MessageTypeDefinition<_slipway_agent_v1_SyncRoutesRequest, _slipway_agent_v1_SyncRoutesRequest__Output>
        SyncRoutesResponse: MessageTypeDefinition<_slipway_agent_v1_SyncRoutesResponse, _slipway_agent_v1_SyncRoutesResponse__Output>
        TailContainerLogsRequest: MessageTypeDefinition<_slipway_agent_v1_TailContainerLogsRequest, _slipway_agent_v1_TailContainerLogsRequest__Output>
        WatchContainerEventsRequest: MessageTypeDefinition<_slipway_agent_v1_WatchContainerEventsRequest, _slipway_agent_v1_WatchContainerEventsRequest__Output>
        WorkspaceNetwork: MessageTypeDefinition<_slipway_agent_v1_WorkspaceNetwork, _slipway_agent_v1_WorkspaceNetwork__Output>
      }
    }
  }
}

