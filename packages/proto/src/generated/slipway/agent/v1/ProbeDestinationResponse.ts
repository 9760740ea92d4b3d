// Original file: ../../proto/slipway/agent/v1/backups.proto


export interface ProbeDestinationResponse {
  'ok'?: (boolean);
  /**
   * write | read | delete: the step that failed ('' when ok)
   */
  'stage'?: (string);
  /**
   * dns | unreachable | tls | credentials | bucket_missing | permission | clock_skew | mismatch | other ('' when ok)
   */
  'reason'?: (string);
  /**
   * what was checked, or what failed and what to do, in words (never the secret key)
   */
  'message'?: (string);
  'elapsedMs'?: (number);
}

export interface ProbeDestinationResponse__Output {
  'ok': (boolean);
  /**
   * write | read | delete: the step that failed ('' when ok)
   */
  'stage': (string);
  /**
   * dns | unreachable | tls | credentials | bucket_missing | permission | clock_skew | mismatch | other ('' when ok)
   */
  'reason': (string);
  /**
   * what was checked, or what failed and what to do, in words (never the secret key)
   */
  'message': (string);
  'elapsedMs': (number);
}
