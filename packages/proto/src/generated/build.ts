import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { BuildEvent as _slipway_agent_v1_BuildEvent, BuildEvent__Output as _slipway_agent_v1_BuildEvent__Output } from './slipway/agent/v1/BuildEvent';
import type { BuildGithubRequest as _slipway_agent_v1_BuildGithubRequest, BuildGithubRequest__Output as _slipway_agent_v1_BuildGithubRequest__Output } from './slipway/agent/v1/BuildGithubRequest';
import type { BuildResult as _slipway_agent_v1_BuildResult, BuildResult__Output as _slipway_agent_v1_BuildResult__Output } from './slipway/agent/v1/BuildResult';
import type { BuildVariable as _slipway_agent_v1_BuildVariable, BuildVariable__Output as _slipway_agent_v1_BuildVariable__Output } from './slipway/agent/v1/BuildVariable';
import type { BuildZipRequest as _slipway_agent_v1_BuildZipRequest, BuildZipRequest__Output as _slipway_agent_v1_BuildZipRequest__Output } from './slipway/agent/v1/BuildZipRequest';
import type { BuildsClient as _slipway_agent_v1_BuildsClient, BuildsDefinition as _slipway_agent_v1_BuildsDefinition } from './slipway/agent/v1/Builds';
import type { DiscardUploadRequest as _slipway_agent_v1_DiscardUploadRequest, DiscardUploadRequest__Output as _slipway_agent_v1_DiscardUploadRequest__Output } from './slipway/agent/v1/DiscardUploadRequest';
import type { DiscardUploadResponse as _slipway_agent_v1_DiscardUploadResponse, DiscardUploadResponse__Output as _slipway_agent_v1_DiscardUploadResponse__Output } from './slipway/agent/v1/DiscardUploadResponse';
import type { UploadZipChunk as _slipway_agent_v1_UploadZipChunk, UploadZipChunk__Output as _slipway_agent_v1_UploadZipChunk__Output } from './slipway/agent/v1/UploadZipChunk';
import type { UploadZipCommit as _slipway_agent_v1_UploadZipCommit, UploadZipCommit__Output as _slipway_agent_v1_UploadZipCommit__Output } from './slipway/agent/v1/UploadZipCommit';
import type { UploadZipHeader as _slipway_agent_v1_UploadZipHeader, UploadZipHeader__Output as _slipway_agent_v1_UploadZipHeader__Output } from './slipway/agent/v1/UploadZipHeader';
import type { UploadZipResult as _slipway_agent_v1_UploadZipResult, UploadZipResult__Output as _slipway_agent_v1_UploadZipResult__Output } from './slipway/agent/v1/UploadZipResult';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  slipway: {
    agent: {
      v1: {
        BuildEvent: MessageTypeDefinition<_slipway_agent_v1_BuildEvent, _slipway_agent_v1_BuildEvent__Output>
        BuildGithubRequest: MessageTypeDefinition<_slipway_agent_v1_BuildGithubRequest, _slipway_agent_v1_BuildGithubRequest__Output>
        BuildResult: MessageTypeDefinition<_slipway_agent_v1_BuildResult, _slipway_agent_v1_BuildResult__Output>
        BuildVariable: MessageTypeDefinition<_slipway_agent_v1_BuildVariable, _slipway_agent_v1_BuildVariable__Output>
        BuildZipRequest: MessageTypeDefinition<_slipway_agent_v1_BuildZipRequest, _slipway_agent_v1_BuildZipRequest__Output>
        Builds: SubtypeConstructor<typeof grpc.Client, _slipway_agent_v1_BuildsClient> & { service: _slipway_agent_v1_BuildsDefinition }
        DiscardUploadRequest: MessageTypeDefinition<_slipway_agent_v1_DiscardUploadRequest, _slipway_agent_v1_DiscardUploadRequest__Output>
        DiscardUploadResponse: MessageTypeDefinition<_slipway_agent_v1_DiscardUploadResponse, _slipway_agent_v1_DiscardUploadResponse__Output>
        UploadZipChunk: MessageTypeDefinition<_slipway_agent_v1_UploadZipChunk, _slipway_agent_v1_UploadZipChunk__Output>
        UploadZipCommit: MessageTypeDefinition<_slipway_agent_v1_UploadZipCommit, _slipway_agent_v1_UploadZipCommit__Output>
        UploadZipHeader: MessageTypeDefinition<_slipway_agent_v1_UploadZipHeader, _slipway_agent_v1_UploadZipHeader__Output>
        UploadZipResult: MessageTypeDefinition<_slipway_agent_v1_UploadZipResult, _slipway_agent_v1_UploadZipResult__Output>
      }
    }
  }
}

