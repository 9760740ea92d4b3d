// Original file: ../../proto/slipway/agent/v1/domains.proto


export interface RemoveCertificatesResponse {
  'removed'?: (number);
  /**
   * Hostnames kept because this server owns them now.
   */
  'kept'?: (string)[];
}

export interface RemoveCertificatesResponse__Output {
  'removed': (number);
  /**
   * Hostnames kept because this server owns them now.
   */
  'kept': (string)[];
}
