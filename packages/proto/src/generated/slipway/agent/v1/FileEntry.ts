// Original file: ../../proto/slipway/agent/v1/files.proto

import type { Long } from '@grpc/proto-loader';

export interface FileEntry {
  'name'?: (string);
  /**
   * file, directory, symlink, other
   */
  'type'?: (string);
  'size'?: (number | string | Long);
  /**
   * Milliseconds since the epoch.
   */
  'modifiedAtMs'?: (number | string);
  /**
   * Octal permission bits, e.g. "0644".
   */
  'mode'?: (string);
}

export interface FileEntry__Output {
  'name': (string);
  /**
   * file, directory, symlink, other
   */
  'type': (string);
  'size': (string);
  /**
   * Milliseconds since the epoch.
   */
  'modifiedAtMs': (number);
  /**
   * Octal permission bits, e.g. "0644".
   */
  'mode': (string);
}
