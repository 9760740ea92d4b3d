// Original file: ../../proto/slipway/agent/v1/build.proto

import type { BuildResult as _slipway_agent_v1_BuildResult, BuildResult__Output as _slipway_agent_v1_BuildResult__Output } from '../../../slipway/agent/v1/BuildResult';

export interface BuildEvent {
  /**
   * A log line (without its newline); empty on the last message, which carries the result.
   */
  'line'?: (string);
  'result'?: (_slipway_agent_v1_BuildResult | null);
}

export interface BuildEvent__Output {
  /**
   * A log line (without its newline); empty on the last message, which carries the result.
   */
  'line': (string);
  'result': (_slipway_agent_v1_BuildResult__Output | null);
}
