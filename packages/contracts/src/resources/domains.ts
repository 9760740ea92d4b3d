// Custom domains of web apps (issue 14): ownership proven by a TXT record, checked by the app's server, routed with
// automatic HTTPS once verified. Choices the spec leaves open are written in the descriptions below.
import { listOf, NullableTimestamp, Ok, Timestamp, Uuid, WORKSPACE_WRITE_DENIALS } from '../common';
import type { Resource } from '../resource';

const Ips = { type: 'array', items: { type: 'string' } } as const;

export const DomainStatus = {
  type: 'string',
  enum: ['pending', 'verified', 'failed'],
  description:
    'pending: waiting for the DNS records (re-checked every 5 minutes for 7 days, then failed). verified: the records ' +
    'were seen; the domain is routed with HTTPS and re-checked hourly. failed: pending for 7 days without the records, ' +
    'or verified and then failing 3 checks in a row (its route is down). A verify call or a passing re-check brings a ' +
    'failed domain back.',
} as const;

export const DomainDns = {
  type: 'object',
  additionalProperties: false,
  required: ['a', 'aaaa', 'txtName', 'txtValue', 'cname'],
  properties: {
    a: {
      ...Ips,
      description:
        "A records the hostname may point at: the public IPv4 addresses of every server serving ingress (every online server with the mesh on, else the app's server); any or all of them: each serves the domain with the same certificate",
    },
    aaaa: { ...Ips, description: "AAAA records it may point at (those servers' public IPv6 addresses; empty: create none)" },
    txtName: { type: 'string', description: '`_svc.<hostname>`' },
    txtValue: { type: 'string', description: 'the token proving ownership, bound to this workspace and hostname' },
    cname: {
      type: ['string', 'null'],
      description: "subdomains only: a CNAME to the app's own subdomain is accepted instead of A/AAAA records (the TXT record is still needed); null for an apex name",
    },
  },
} as const;

export const DomainCheck = {
  type: ['object', 'null'],
  additionalProperties: false,
  required: ['a', 'aaaa', 'txt', 'cname', 'at', 'error'],
  description: "what the app's server saw at its last check (null before the first)",
  properties: {
    a: { ...Ips, description: 'A answers seen' },
    aaaa: { ...Ips, description: 'AAAA answers seen' },
    txt: { type: 'boolean', description: 'the TXT value was found at txtName' },
    cname: { type: ['string', 'null'], description: 'where the CNAME chain of the hostname ends, when it has one' },
    at: Timestamp,
    error: { type: ['string', 'null'], description: 'why the check did not pass, in words; null when it passed' },
  },
} as const;

export const DomainCertificate = {
  type: 'object',
  additionalProperties: false,
  required: ['status', 'issuer', 'notAfter', 'error'],
  properties: {
    status: {
      type: 'string',
      enum: ['none', 'pending', 'issued', 'failed'],
      description: 'none: not verified, no certificate wanted. pending: being obtained. issued: served. failed: the CA refused or the challenge failed (error says why; retried)',
    },
    issuer: { type: ['string', 'null'], description: "the served certificate's issuer" },
    notAfter: NullableTimestamp,
    error: { type: ['string', 'null'] },
  },
} as const;

export const Domain = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'appId', 'hostname', 'hostnameUnicode', 'status', 'dns', 'check', 'routed', 'certificate', 'verifiedAt', 'createdAt'],
  properties: {
    id: Uuid,
    appId: Uuid,
    hostname: { type: 'string', description: 'lowercase ASCII; internationalised names in their punycode (xn--) form' },
    hostnameUnicode: { type: 'string', description: 'the same name in Unicode, for display' },
    status: DomainStatus,
    dns: DomainDns,
    check: DomainCheck,
    routed: { type: 'boolean', description: "the servers' Caddy routes the hostname (verified, app running): the app's server, and every other server with the mesh on" },
    certificate: DomainCertificate,
    verifiedAt: NullableTimestamp,
    createdAt: Timestamp,
  },
} as const;

export const DomainList = listOf(Domain);

export const CreateDomainRequest = {
  type: 'object',
  additionalProperties: false,
  required: ['hostname'],
  properties: {
    hostname: {
      type: 'string',
      minLength: 1,
      maxLength: 300,
      description:
        'a fully qualified name (apex or subdomain; Unicode accepted). Refused with 400 invalid_hostname (details[0].reason): ' +
        'invalid, ip_address, localhost, single_label, wildcard, apps_domain (under the platform\'s own apps domain)',
    },
  },
} as const;

const DOMAIN = '/v1/workspaces/{workspaceId}/apps/{appId}/domains';

export const DOMAINS = {
  tag: { name: 'domains', description: 'Custom domains of web apps: proven by DNS records, served with automatic HTTPS' },
  schemas: { Domain, DomainList, DomainDns, DomainCheck, DomainCertificate, DomainStatus, CreateDomainRequest },
  operations: {
    createDomain: {
      method: 'post',
      path: DOMAIN,
      tag: 'domains',
      summary: 'Add a custom domain to a web app; the answer lists the DNS records to create (at most 20 per app)',
      description: 'A hostname held by any workspace is 409 domain_taken; the 21st domain of an app is 402 quota_exceeded (resource domains).',
      auth: 'any',
      permission: 'domains.write',
      body: CreateDomainRequest,
      success: { status: 201, description: 'the domain, pending, with its records', schema: Domain },
      errors: { 400: ['invalid_hostname'], 402: ['quota_exceeded'], 403: WORKSPACE_WRITE_DENIALS, 409: ['app_not_web', 'domain_taken'] },
    },
    listDomains: {
      method: 'get',
      path: DOMAIN,
      tag: 'domains',
      summary: "The app's custom domains, oldest first",
      auth: 'any',
      permission: 'domains.read',
      success: { status: 200, description: 'domains', schema: DomainList },
    },
    getDomain: {
      method: 'get',
      path: `${DOMAIN}/{domainId}`,
      tag: 'domains',
      summary: 'A custom domain, with the state of its certificate as last collected from its server (every minute, and at each verify)',
      auth: 'any',
      permission: 'domains.read',
      success: { status: 200, description: 'the domain', schema: Domain },
    },
    verifyDomain: {
      method: 'post',
      path: `${DOMAIN}/{domainId}/verify`,
      tag: 'domains',
      summary: "Check the DNS records now (from the app's server) and answer the updated domain",
      description: 'A check that does not pass is not an error: the domain stays pending (or counts a failure) and `check.error` says why.',
      auth: 'any',
      permission: 'domains.write',
      success: { status: 200, description: 'the domain after the check', schema: Domain },
      errors: { 403: WORKSPACE_WRITE_DENIALS, 503: ['node_unavailable'] },
    },
    deleteDomain: {
      method: 'delete',
      path: `${DOMAIN}/{domainId}`,
      tag: 'domains',
      summary: 'Remove a custom domain: its route and certificate policy leave the server',
      auth: 'any',
      permission: 'domains.write',
      success: { status: 200, description: 'deleted', schema: Ok },
      errors: { 403: WORKSPACE_WRITE_DENIALS },
    },
  },
} as const satisfies Resource;
