// Original file: ../../proto/slipway/agent/v1/domains.proto


/**
 * One entry of Caddy's certificate storage (certmagic's layout: certificates/<issuer_key>/<hostname>/<hostname>.crt|.key|.json).
 */
export interface StoredCertificate {
  'hostname'?: (string);
  /**
   * The issuer's folder name (e.g. acme-v02.api.letsencrypt.org-directory): the same on every server of one ACME setting.
   */
  'issuerKey'?: (string);
  'certificatePem'?: (string);
  'keyPem'?: (string);
  /**
   * The entry's metadata (`<hostname>.json`: its names and the issuer's data); Caddy loads no entry without it.
   */
  'metaJson'?: (string);
}

/**
 * One entry of Caddy's certificate storage (certmagic's layout: certificates/<issuer_key>/<hostname>/<hostname>.crt|.key|.json).
 */
export interface StoredCertificate__Output {
  'hostname': (string);
  /**
   * The issuer's folder name (e.g. acme-v02.api.letsencrypt.org-directory): the same on every server of one ACME setting.
   */
  'issuerKey': (string);
  'certificatePem': (string);
  'keyPem': (string);
  /**
   * The entry's metadata (`<hostname>.json`: its names and the issuer's data); Caddy loads no entry without it.
   */
  'metaJson': (string);
}
