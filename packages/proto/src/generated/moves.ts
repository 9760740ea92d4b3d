import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { DataSignatureRequest as _slipway_agent_v1_DataSignatureRequest, DataSignatureRequest__Output as _slipway_agent_v1_DataSignatureRequest__Output } from './slipway/agent/v1/DataSignatureRequest';
import type { ExportDataDeltaRequest as _slipway_agent_v1_ExportDataDeltaRequest, ExportDataDeltaRequest__Output as _slipway_agent_v1_ExportDataDeltaRequest__Output } from './slipway/agent/v1/ExportDataDeltaRequest';
import type { ExportFolderRequest as _slipway_agent_v1_ExportFolderRequest, ExportFolderRequest__Output as _slipway_agent_v1_ExportFolderRequest__Output } from './slipway/agent/v1/ExportFolderRequest';
import type { ExportImagesRequest as _slipway_agent_v1_ExportImagesRequest, ExportImagesRequest__Output as _slipway_agent_v1_ExportImagesRequest__Output } from './slipway/agent/v1/ExportImagesRequest';
import type { ImportChunk as _slipway_agent_v1_ImportChunk, ImportChunk__Output as _slipway_agent_v1_ImportChunk__Output } from './slipway/agent/v1/ImportChunk';
import type { ImportCommit as _slipway_agent_v1_ImportCommit, ImportCommit__Output as _slipway_agent_v1_ImportCommit__Output } from './slipway/agent/v1/ImportCommit';
import type { ImportFolderResponse as _slipway_agent_v1_ImportFolderResponse, ImportFolderResponse__Output as _slipway_agent_v1_ImportFolderResponse__Output } from './slipway/agent/v1/ImportFolderResponse';
import type { ImportHeader as _slipway_agent_v1_ImportHeader, ImportHeader__Output as _slipway_agent_v1_ImportHeader__Output } from './slipway/agent/v1/ImportHeader';
import type { ImportImagesResponse as _slipway_agent_v1_ImportImagesResponse, ImportImagesResponse__Output as _slipway_agent_v1_ImportImagesResponse__Output } from './slipway/agent/v1/ImportImagesResponse';
import type { MoveChunk as _slipway_agent_v1_MoveChunk, MoveChunk__Output as _slipway_agent_v1_MoveChunk__Output } from './slipway/agent/v1/MoveChunk';
import type { MoveEnd as _slipway_agent_v1_MoveEnd, MoveEnd__Output as _slipway_agent_v1_MoveEnd__Output } from './slipway/agent/v1/MoveEnd';
import type { MovesClient as _slipway_agent_v1_MovesClient, MovesDefinition as _slipway_agent_v1_MovesDefinition } from './slipway/agent/v1/Moves';
import type { RemoveBackupFoldersRequest as _slipway_agent_v1_RemoveBackupFoldersRequest, RemoveBackupFoldersRequest__Output as _slipway_agent_v1_RemoveBackupFoldersRequest__Output } from './slipway/agent/v1/RemoveBackupFoldersRequest';
import type { RemoveBackupFoldersResponse as _slipway_agent_v1_RemoveBackupFoldersResponse, RemoveBackupFoldersResponse__Output as _slipway_agent_v1_RemoveBackupFoldersResponse__Output } from './slipway/agent/v1/RemoveBackupFoldersResponse';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  slipway: {
    agent: {
      v1: {
        DataSignatureRequest: MessageTypeDefinition<_slipway_agent_v1_DataSignatureRequest, _slipway_agent_v1_DataSignatureRequest__Output>
        ExportDataDeltaRequest: MessageTypeDefinition<_slipway_agent_v1_ExportDataDeltaRequest, _slipway_agent_v1_ExportDataDeltaRequest__Output>
        ExportFolderRequest: MessageTypeDefinition<_slipway_agent_v1_ExportFolderRequest, _slipway_agent_v1_ExportFolderRequest__Output>
        ExportImagesRequest: MessageTypeDefinition<_slipway_agent_v1_ExportImagesRequest, _slipway_agent_v1_ExportImagesRequest__Output>
        ImportChunk: MessageTypeDefinition<_slipway_agent_v1_ImportChunk, _slipway_agent_v1_ImportChunk__Output>
        ImportCommit: MessageTypeDefinition<_slipway_agent_v1_ImportCommit, _slipway_agent_v1_ImportCommit__Output>
        ImportFolderResponse: MessageTypeDefinition<_slipway_agent_v1_ImportFolderResponse, _slipway_agent_v1_ImportFolderResponse__Output>
        ImportHeader: MessageTypeDefinition<_slipway_agent_v1_ImportHeader, _slipway_agent_v1_ImportHeader__Output>
        ImportImagesResponse: MessageTypeDefinition<_slipway_agent_v1_ImportImagesResponse, _slipway_agent_v1_ImportImagesResponse__Output>
        MoveChunk: MessageTypeDefinition<_slipway_agent_v1_MoveChunk, _slipway_agent_v1_MoveChunk__Output>
        MoveEnd: MessageTypeDefinition<_slipway_agent_v1_MoveEnd, _slipway_agent_v1_MoveEnd__Output>
        MovedFolder: EnumTypeDefinition
        Moves: SubtypeConstructor<typeof grpc.Client, _slipway_agent_v1_MovesClient> & { service: _slipway_agent_v1_MovesDefinition }
        RemoveBackupFoldersRequest: MessageTypeDefinition<_slipway_agent_v1_RemoveBackupFoldersRequest, _slipway_agent_v1_RemoveBackupFoldersRequest__Output>
        RemoveBackupFoldersResponse: MessageTypeDefinition<_slipway_agent_v1_RemoveBackupFoldersResponse, _slipway_agent_v1_RemoveBackupFoldersResponse__Output>
      }
    }
  }
}

