import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { BackupFile as _slipway_agent_v1_BackupFile, BackupFile__Output as _slipway_agent_v1_BackupFile__Output } from './slipway/agent/v1/BackupFile';
import type { BackupRequest as _slipway_agent_v1_BackupRequest, BackupRequest__Output as _slipway_agent_v1_BackupRequest__Output } from './slipway/agent/v1/BackupRequest';
import type { BackupsClient as _slipway_agent_v1_BackupsClient, BackupsDefinition as _slipway_agent_v1_BackupsDefinition } from './slipway/agent/v1/Backups';
import type { DeleteBackupResponse as _slipway_agent_v1_DeleteBackupResponse, DeleteBackupResponse__Output as _slipway_agent_v1_DeleteBackupResponse__Output } from './slipway/agent/v1/DeleteBackupResponse';
import type { Offsite as _slipway_agent_v1_Offsite, Offsite__Output as _slipway_agent_v1_Offsite__Output } from './slipway/agent/v1/Offsite';
import type { ProbeDestinationRequest as _slipway_agent_v1_ProbeDestinationRequest, ProbeDestinationRequest__Output as _slipway_agent_v1_ProbeDestinationRequest__Output } from './slipway/agent/v1/ProbeDestinationRequest';
import type { ProbeDestinationResponse as _slipway_agent_v1_ProbeDestinationResponse, ProbeDestinationResponse__Output as _slipway_agent_v1_ProbeDestinationResponse__Output } from './slipway/agent/v1/ProbeDestinationResponse';
import type { ReadBackupChunk as _slipway_agent_v1_ReadBackupChunk, ReadBackupChunk__Output as _slipway_agent_v1_ReadBackupChunk__Output } from './slipway/agent/v1/ReadBackupChunk';
import type { ReadBackupInfo as _slipway_agent_v1_ReadBackupInfo, ReadBackupInfo__Output as _slipway_agent_v1_ReadBackupInfo__Output } from './slipway/agent/v1/ReadBackupInfo';
import type { ReadBackupRequest as _slipway_agent_v1_ReadBackupRequest, ReadBackupRequest__Output as _slipway_agent_v1_ReadBackupRequest__Output } from './slipway/agent/v1/ReadBackupRequest';
import type { RestoreBackupRequest as _slipway_agent_v1_RestoreBackupRequest, RestoreBackupRequest__Output as _slipway_agent_v1_RestoreBackupRequest__Output } from './slipway/agent/v1/RestoreBackupRequest';
import type { RestoreBackupResponse as _slipway_agent_v1_RestoreBackupResponse, RestoreBackupResponse__Output as _slipway_agent_v1_RestoreBackupResponse__Output } from './slipway/agent/v1/RestoreBackupResponse';
import type { VerifyBackupResponse as _slipway_agent_v1_VerifyBackupResponse, VerifyBackupResponse__Output as _slipway_agent_v1_VerifyBackupResponse__Output } from './slipway/agent/v1/VerifyBackupResponse';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  slipway: {
    agent: {
      v1: {
        BackupFile: MessageTypeDefinition<_slipway_agent_v1_BackupFile, _slipway_agent_v1_BackupFile__Output>
        BackupRequest: MessageTypeDefinition<_slipway_agent_v1_BackupRequest, _slipway_agent_v1_BackupRequest__Output>
        Backups: SubtypeConstructor<typeof grpc.Client, _slipway_agent_v1_BackupsClient> & { service: _slipway_agent_v1_BackupsDefinition }
        DeleteBackupResponse: MessageTypeDefinition<_slipway_agent_v1_DeleteBackupResponse, _slipway_agent_v1_DeleteBackupResponse__Output>
        Offsite: MessageTypeDefinition<_slipway_agent_v1_Offsite, _slipway_agent_v1_Offsite__Output>
        ProbeDestinationRequest: MessageTypeDefinition<_slipway_agent_v1_ProbeDestinationRequest, _slipway_agent_v1_ProbeDestinationRequest__Output>
        ProbeDestinationResponse: MessageTypeDefinition<_slipway_agent_v1_ProbeDestinationResponse, _slipway_agent_v1_ProbeDestinationResponse__Output>
        ReadBackupChunk: MessageTypeDefinition<_slipway_agent_v1_ReadBackupChunk, _slipway_agent_v1_ReadBackupChunk__Output>
        ReadBackupInfo: MessageTypeDefinition<_slipway_agent_v1_ReadBackupInfo, _slipway_agent_v1_ReadBackupInfo__Output>
        ReadBackupRequest: MessageTypeDefinition<_slipway_agent_v1_ReadBackupRequest, _slipway_agent_v1_ReadBackupRequest__Output>
        RestoreBackupRequest: MessageTypeDefinition<_slipway_agent_v1_RestoreBackupRequest, _slipway_agent_v1_RestoreBackupRequest__Output>
        RestoreBackupResponse: MessageTypeDefinition<_slipway_agent_v1_RestoreBackupResponse, _slipway_agent_v1_RestoreBackupResponse__Output>
        VerifyBackupResponse: MessageTypeDefinition<_slipway_agent_v1_VerifyBackupResponse, _slipway_agent_v1_VerifyBackupResponse__Output>
      }
    }
  }
}

