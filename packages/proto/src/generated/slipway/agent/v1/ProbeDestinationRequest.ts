// Original file: ../../proto/slipway/agent/v1/backups.proto

import type { Offsite as _slipway_agent_v1_Offsite, Offsite__Output as _slipway_agent_v1_Offsite__Output } from '../../../slipway/agent/v1/Offsite';

export interface ProbeDestinationRequest {
  /**
   * endpoint, region, bucket, path style and keys (backup_key, key, keep_local and sha256 are not used)
   */
  'destination'?: (_slipway_agent_v1_Offsite | null);
  /**
   * empty, or ending in `/`: the probe object goes under it
   */
  'prefix'?: (string);
}

export interface ProbeDestinationRequest__Output {
  /**
   * endpoint, region, bucket, path style and keys (backup_key, key, keep_local and sha256 are not used)
   */
  'destination': (_slipway_agent_v1_Offsite__Output | null);
  /**
   * empty, or ending in `/`: the probe object goes under it
   */
  'prefix': (string);
}
