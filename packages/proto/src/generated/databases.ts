import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { DatabaseEngineImage as _slipway_agent_v1_DatabaseEngineImage, DatabaseEngineImage__Output as _slipway_agent_v1_DatabaseEngineImage__Output } from './slipway/agent/v1/DatabaseEngineImage';
import type { DatabaseEnginesRequest as _slipway_agent_v1_DatabaseEnginesRequest, DatabaseEnginesRequest__Output as _slipway_agent_v1_DatabaseEnginesRequest__Output } from './slipway/agent/v1/DatabaseEnginesRequest';
import type { DatabaseEnginesResponse as _slipway_agent_v1_DatabaseEnginesResponse, DatabaseEnginesResponse__Output as _slipway_agent_v1_DatabaseEnginesResponse__Output } from './slipway/agent/v1/DatabaseEnginesResponse';
import type { DatabaseOnNode as _slipway_agent_v1_DatabaseOnNode, DatabaseOnNode__Output as _slipway_agent_v1_DatabaseOnNode__Output } from './slipway/agent/v1/DatabaseOnNode';
import type { DatabasePublicAccess as _slipway_agent_v1_DatabasePublicAccess, DatabasePublicAccess__Output as _slipway_agent_v1_DatabasePublicAccess__Output } from './slipway/agent/v1/DatabasePublicAccess';
import type { DatabaseStatus as _slipway_agent_v1_DatabaseStatus, DatabaseStatus__Output as _slipway_agent_v1_DatabaseStatus__Output } from './slipway/agent/v1/DatabaseStatus';
import type { DatabaseTls as _slipway_agent_v1_DatabaseTls, DatabaseTls__Output as _slipway_agent_v1_DatabaseTls__Output } from './slipway/agent/v1/DatabaseTls';
import type { DatabasesClient as _slipway_agent_v1_DatabasesClient, DatabasesDefinition as _slipway_agent_v1_DatabasesDefinition } from './slipway/agent/v1/Databases';
import type { EnsureDatabaseRequest as _slipway_agent_v1_EnsureDatabaseRequest, EnsureDatabaseRequest__Output as _slipway_agent_v1_EnsureDatabaseRequest__Output } from './slipway/agent/v1/EnsureDatabaseRequest';
import type { GetDatabaseCaRequest as _slipway_agent_v1_GetDatabaseCaRequest, GetDatabaseCaRequest__Output as _slipway_agent_v1_GetDatabaseCaRequest__Output } from './slipway/agent/v1/GetDatabaseCaRequest';
import type { GetDatabaseCaResponse as _slipway_agent_v1_GetDatabaseCaResponse, GetDatabaseCaResponse__Output as _slipway_agent_v1_GetDatabaseCaResponse__Output } from './slipway/agent/v1/GetDatabaseCaResponse';
import type { ListDatabasesRequest as _slipway_agent_v1_ListDatabasesRequest, ListDatabasesRequest__Output as _slipway_agent_v1_ListDatabasesRequest__Output } from './slipway/agent/v1/ListDatabasesRequest';
import type { ListDatabasesResponse as _slipway_agent_v1_ListDatabasesResponse, ListDatabasesResponse__Output as _slipway_agent_v1_ListDatabasesResponse__Output } from './slipway/agent/v1/ListDatabasesResponse';
import type { RemoveDatabaseRequest as _slipway_agent_v1_RemoveDatabaseRequest, RemoveDatabaseRequest__Output as _slipway_agent_v1_RemoveDatabaseRequest__Output } from './slipway/agent/v1/RemoveDatabaseRequest';
import type { RemoveDatabaseResponse as _slipway_agent_v1_RemoveDatabaseResponse, RemoveDatabaseResponse__Output as _slipway_agent_v1_RemoveDatabaseResponse__Output } from './slipway/agent/v1/RemoveDatabaseResponse';
import type { RotateDatabasePasswordRequest as _slipway_agent_v1_RotateDatabasePasswordRequest, RotateDatabasePasswordRequest__Output as _slipway_agent_v1_RotateDatabasePasswordRequest__Output } from './slipway/agent/v1/RotateDatabasePasswordRequest';
import type { SetDatabasePublicAccessRequest as _slipway_agent_v1_SetDatabasePublicAccessRequest, SetDatabasePublicAccessRequest__Output as _slipway_agent_v1_SetDatabasePublicAccessRequest__Output } from './slipway/agent/v1/SetDatabasePublicAccessRequest';
import type { StopDatabaseRequest as _slipway_agent_v1_StopDatabaseRequest, StopDatabaseRequest__Output as _slipway_agent_v1_StopDatabaseRequest__Output } from './slipway/agent/v1/StopDatabaseRequest';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  slipway: {
    agent: {
      v1: {
        DatabaseEngineImage: MessageTypeDefinition<_slipway_agent_v1_DatabaseEngineImage, _slipway_agent_v1_DatabaseEngineImage__Output>
        DatabaseEnginesRequest: MessageTypeDefinition<_slipway_agent_v1_DatabaseEnginesRequest, _slipway_agent_v1_DatabaseEnginesRequest__Output>
        DatabaseEnginesResponse: MessageTypeDefinition<_slipway_agent_v1_DatabaseEnginesResponse, _slipway_agent_v1_DatabaseEnginesResponse__Output>
        DatabaseOnNode: MessageTypeDefinition<_slipway_agent_v1_DatabaseOnNode, _slipway_agent_v1_DatabaseOnNode__Output>
        DatabasePublicAccess: MessageTypeDefinition<_slipway_agent_v1_DatabasePublicAccess, _slipway_agent_v1_DatabasePublicAccess__Output>
        DatabaseStatus: MessageTypeDefinition<_slipway_agent_v1_DatabaseStatus, _slipway_agent_v1_DatabaseStatus__Output>
        DatabaseTls: MessageTypeDefinition<_slipway_agent_v1_DatabaseTls, _slipway_agent_v1_DatabaseTls__Output>
        Databases: SubtypeConstructor<typeof grpc.Client, _slipway_agent_v1_DatabasesClient> & { service: _slipway_agent_v1_DatabasesDefinition }
        EnsureDatabaseRequest: MessageTypeDefinition<_slipway_agent_v1_EnsureDatabaseRequest, _slipway_agent_v1_EnsureDatabaseRequest__Output>
        GetDatabaseCaRequest: MessageTypeDefinition<_slipway_agent_v1_GetDatabaseCaRequest, _slipway_agent_v1_GetDatabaseCaRequest__Output>
        GetDatabaseCaResponse: MessageTypeDefinition<_slipway_agent_v1_GetDatabaseCaResponse, _slipway_agent_v1_GetDatabaseCaResponse__Output>
        ListDatabasesRequest: MessageTypeDefinition<_slipway_agent_v1_ListDatabasesRequest, _slipway_agent_v1_ListDatabasesRequest__Output>
        ListDatabasesResponse: MessageTypeDefinition<_slipway_agent_v1_ListDatabasesResponse, _slipway_agent_v1_ListDatabasesResponse__Output>
        RemoveDatabaseRequest: MessageTypeDefinition<_slipway_agent_v1_RemoveDatabaseRequest, _slipway_agent_v1_RemoveDatabaseRequest__Output>
        RemoveDatabaseResponse: MessageTypeDefinition<_slipway_agent_v1_RemoveDatabaseResponse, _slipway_agent_v1_RemoveDatabaseResponse__Output>
        RotateDatabasePasswordRequest: MessageTypeDefinition<_slipway_agent_v1_RotateDatabasePasswordRequest, _slipway_agent_v1_RotateDatabasePasswordRequest__Output>
        SetDatabasePublicAccessRequest: MessageTypeDefinition<_slipway_agent_v1_SetDatabasePublicAccessRequest, _slipway_agent_v1_SetDatabasePublicAccessRequest__Output>
        StopDatabaseRequest: MessageTypeDefinition<_slipway_agent_v1_StopDatabaseRequest, _slipway_agent_v1_StopDatabaseRequest__Output>
      }
    }
  }
}

