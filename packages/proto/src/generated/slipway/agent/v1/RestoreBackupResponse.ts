// Original file: ../../proto/slipway/agent/v1/backups.proto

import type { Long } from '@grpc/proto-loader';

export interface RestoreBackupResponse {
  'restoredBytes'?: (number | string | Long);
}

export interface RestoreBackupResponse__Output {
  'restoredBytes': (string);
}
