// Original file: ../../proto/slipway/agent/v1/backups.proto

import type { Long } from '@grpc/proto-loader';

/**
 * An S3-compatible destination and the workspace's backup key, sent for one call only: the agent never stores them
 * and never logs them (docs/decisions/0036-offsite-backups.md).
 */
export interface Offsite {
  'endpoint'?: (string);
  'region'?: (string);
  'bucket'?: (string);
  'pathStyle'?: (boolean);
  'accessKeyId'?: (string);
  'secretAccessKey'?: (string);
  /**
   * the workspace's backup key: 32 bytes (AES-256-GCM chunks, slipway-sealed-v1)
   */
  'backupKey'?: (Buffer | Uint8Array | string);
  /**
   * CreateBackup: the object's key without its ending (the agent adds `.<ext>.sealed`); other calls: the whole key
   */
  'key'?: (string);
  /**
   * CreateBackup: keep a copy of the dump in backups/<database_id>/ too (the local cache)
   */
  'keepLocal'?: (boolean);
  /**
   * RestoreBackup / VerifyBackup: the SHA-256 of the stored (sealed) object, recorded when it was made
   */
  'sha256'?: (string);
  /**
   * CreateBackup: the most the dump is expected to be (the control plane sends 1.5 × the database's disk): the
   * multipart upload's parts grow past 8 MiB when 9,000 of them would not hold it (S3 allows 10,000). 0: 8 MiB parts.
   */
  'sizeHintBytes'?: (number | string | Long);
}

/**
 * An S3-compatible destination and the workspace's backup key, sent for one call only: the agent never stores them
 * and never logs them (docs/decisions/0036-offsite-backups.md).
 */
export interface Offsite__Output {
  'endpoint': (string);
  'region': (string);
  'bucket': (string);
  'pathStyle': (boolean);
  'accessKeyId': (string);
  'secretAccessKey': (string);
  /**
   * the workspace's backup key: 32 bytes (AES-256-GCM chunks, slipway-sealed-v1)
   */
  'backupKey': (Buffer);
  /**
   * CreateBackup: the object's key without its ending (the agent adds `.<ext>.sealed`); other calls: the whole key
   */
  'key': (string);
  /**
   * CreateBackup: keep a copy of the dump in backups/<database_id>/ too (the local cache)
   */
  'keepLocal': (boolean);
  /**
   * RestoreBackup / VerifyBackup: the SHA-256 of the stored (sealed) object, recorded when it was made
   */
  'sha256': (string);
  /**
   * CreateBackup: the most the dump is expected to be (the control plane sends 1.5 × the database's disk): the
   * multipart upload's parts grow past 8 MiB when 9,000 of them would not hold it (S3 allows 10,000). 0: 8 MiB parts.
   */
  'sizeHintBytes': (string);
}
