// Original file: ../../proto/slipway/agent/v1/databases.proto

import type { DatabasePublicAccess as _slipway_agent_v1_DatabasePublicAccess, DatabasePublicAccess__Output as _slipway_agent_v1_DatabasePublicAccess__Output } from '../../../slipway/agent/v1/DatabasePublicAccess';

export interface SetDatabasePublicAccessRequest {
  'operationId'?: (string);
  'databaseId'?: (string);
  'public'?: (_slipway_agent_v1_DatabasePublicAccess | null);
}

export interface SetDatabasePublicAccessRequest__Output {
  'operationId': (string);
  'databaseId': (string);
  'public': (_slipway_agent_v1_DatabasePublicAccess__Output | null);
}
