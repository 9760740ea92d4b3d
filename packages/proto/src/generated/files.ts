import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { DeleteFileRequest as _slipway_agent_v1_DeleteFileRequest, DeleteFileRequest__Output as _slipway_agent_v1_DeleteFileRequest__Output } from './slipway/agent/v1/DeleteFileRequest';
import type { FileEntry as _slipway_agent_v1_FileEntry, FileEntry__Output as _slipway_agent_v1_FileEntry__Output } from './slipway/agent/v1/FileEntry';
import type { FilesClient as _slipway_agent_v1_FilesClient, FilesDefinition as _slipway_agent_v1_FilesDefinition } from './slipway/agent/v1/Files';
import type { FilesOk as _slipway_agent_v1_FilesOk, FilesOk__Output as _slipway_agent_v1_FilesOk__Output } from './slipway/agent/v1/FilesOk';
import type { ListFilesRequest as _slipway_agent_v1_ListFilesRequest, ListFilesRequest__Output as _slipway_agent_v1_ListFilesRequest__Output } from './slipway/agent/v1/ListFilesRequest';
import type { ListFilesResponse as _slipway_agent_v1_ListFilesResponse, ListFilesResponse__Output as _slipway_agent_v1_ListFilesResponse__Output } from './slipway/agent/v1/ListFilesResponse';
import type { ReadFileChunk as _slipway_agent_v1_ReadFileChunk, ReadFileChunk__Output as _slipway_agent_v1_ReadFileChunk__Output } from './slipway/agent/v1/ReadFileChunk';
import type { ReadFileInfo as _slipway_agent_v1_ReadFileInfo, ReadFileInfo__Output as _slipway_agent_v1_ReadFileInfo__Output } from './slipway/agent/v1/ReadFileInfo';
import type { ReadFileRequest as _slipway_agent_v1_ReadFileRequest, ReadFileRequest__Output as _slipway_agent_v1_ReadFileRequest__Output } from './slipway/agent/v1/ReadFileRequest';
import type { RenameFileRequest as _slipway_agent_v1_RenameFileRequest, RenameFileRequest__Output as _slipway_agent_v1_RenameFileRequest__Output } from './slipway/agent/v1/RenameFileRequest';
import type { WriteFileChunk as _slipway_agent_v1_WriteFileChunk, WriteFileChunk__Output as _slipway_agent_v1_WriteFileChunk__Output } from './slipway/agent/v1/WriteFileChunk';
import type { WriteFileCommit as _slipway_agent_v1_WriteFileCommit, WriteFileCommit__Output as _slipway_agent_v1_WriteFileCommit__Output } from './slipway/agent/v1/WriteFileCommit';
import type { WriteFileHeader as _slipway_agent_v1_WriteFileHeader, WriteFileHeader__Output as _slipway_agent_v1_WriteFileHeader__Output } from './slipway/agent/v1/WriteFileHeader';
import type { WriteFileResponse as _slipway_agent_v1_WriteFileResponse, WriteFileResponse__Output as _slipway_agent_v1_WriteFileResponse__Output } from './slipway/agent/v1/WriteFileResponse';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  slipway: {
    agent: {
      v1: {
        DeleteFileRequest: MessageTypeDefinition<_slipway_agent_v1_DeleteFileRequest, _slipway_agent_v1_DeleteFileRequest__Output>
        FileEntry: MessageTypeDefinition<_slipway_agent_v1_FileEntry, _slipway_agent_v1_FileEntry__Output>
        Files: SubtypeConstructor<typeof grpc.Client, _slipway_agent_v1_FilesClient> & { service: _slipway_agent_v1_FilesDefinition }
        FilesOk: MessageTypeDefinition<_slipway_agent_v1_FilesOk, _slipway_agent_v1_FilesOk__Output>
        ListFilesRequest: MessageTypeDefinition<_slipway_agent_v1_ListFilesRequest, _slipway_agent_v1_ListFilesRequest__Output>
        ListFilesResponse: MessageTypeDefinition<_slipway_agent_v1_ListFilesResponse, _slipway_agent_v1_ListFilesResponse__Output>
        ReadFileChunk: MessageTypeDefinition<_slipway_agent_v1_ReadFileChunk, _slipway_agent_v1_ReadFileChunk__Output>
        ReadFileInfo: MessageTypeDefinition<_slipway_agent_v1_ReadFileInfo, _slipway_agent_v1_ReadFileInfo__Output>
        ReadFileRequest: MessageTypeDefinition<_slipway_agent_v1_ReadFileRequest, _slipway_agent_v1_ReadFileRequest__Output>
        RenameFileRequest: MessageTypeDefinition<_slipway_agent_v1_RenameFileRequest, _slipway_agent_v1_RenameFileRequest__Output>
        WriteFileChunk: MessageTypeDefinition<_slipway_agent_v1_WriteFileChunk, _slipway_agent_v1_WriteFileChunk__Output>
        WriteFileCommit: MessageTypeDefinition<_slipway_agent_v1_WriteFileCommit, _slipway_agent_v1_WriteFileCommit__Output>
        WriteFileHeader: MessageTypeDefinition<_slipway_agent_v1_WriteFileHeader, _slipway_agent_v1_WriteFileHeader__Output>
        WriteFileResponse: MessageTypeDefinition<_slipway_agent_v1_WriteFileResponse, _slipway_agent_v1_WriteFileResponse__Output>
      }
    }
  }
}

