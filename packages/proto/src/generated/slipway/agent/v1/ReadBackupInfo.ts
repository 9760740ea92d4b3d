// Original file: ../../proto/slipway/agent/v1/backups.proto

import type { Long } from '@grpc/proto-loader';

export interface ReadBackupInfo {
  'sizeBytes'?: (number | string | Long);
  'sha256'?: (string);
  'name'?: (string);
}

export interface ReadBackupInfo__Output {
  'sizeBytes': (string);
  'sha256': (string);
  'name': (string);
}
