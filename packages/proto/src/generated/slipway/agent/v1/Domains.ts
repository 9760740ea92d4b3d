// Original file: ../../proto/slipway/agent/v1/domains.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { CheckDomainRequest as _slipway_agent_v1_CheckDomainRequest, CheckDomainRequest__Output as _slipway_agent_v1_CheckDomainRequest__Output } from '../../../slipway/agent/v1/CheckDomainRequest';
import type { CheckDomainResponse as _slipway_agent_v1_CheckDomainResponse, CheckDomainResponse__Output as _slipway_agent_v1_CheckDomainResponse__Output } from '../../../slipway/agent/v1/CheckDomainResponse';
import type { DomainCertificatesRequest as _slipway_agent_v1_DomainCertificatesRequest, DomainCertificatesRequest__Output as _slipway_agent_v1_DomainCertificatesRequest__Output } from '../../../slipway/agent/v1/DomainCertificatesRequest';
import type { DomainCertificatesResponse as _slipway_agent_v1_DomainCertificatesResponse, DomainCertificatesResponse__Output as _slipway_agent_v1_DomainCertificatesResponse__Output } from '../../../slipway/agent/v1/DomainCertificatesResponse';
import type { SyncDomainsRequest as _slipway_agent_v1_SyncDomainsRequest, SyncDomainsRequest__Output as _slipway_agent_v1_SyncDomainsRequest__Output } from '../../../slipway/agent/v1/SyncDomainsRequest';
import type { SyncDomainsResponse as _slipway_agent_v1_SyncDomainsResponse, SyncDomainsResponse__Output as _slipway_agent_v1_SyncDomainsResponse__Output } from '../../../slipway/agent/v1/SyncDomainsResponse';

export interface DomainsClient extends grpc.Client {
  /**
   * Resolves A, AAAA and the CNAME chain of `hostname` and the TXT values at `txt_name` with the configured resolvers.
   * "No such record" is an empty answer; any other failure is reported in `error`, in words.
   */
  CheckDomain(argument: _slipway_agent_v1_CheckDomainRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_CheckDomainResponse__Output>): grpc.ClientUnaryCall;
  CheckDomain(argument: _slipway_agent_v1_CheckDomainRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_CheckDomainResponse__Output>): grpc.ClientUnaryCall;
  CheckDomain(argument: _slipway_agent_v1_CheckDomainRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_CheckDomainResponse__Output>): grpc.ClientUnaryCall;
  CheckDomain(argument: _slipway_agent_v1_CheckDomainRequest, callback: grpc.requestCallback<_slipway_agent_v1_CheckDomainResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Resolves A, AAAA and the CNAME chain of `hostname` and the TXT values at `txt_name` with the configured resolvers.
   * "No such record" is an empty answer; any other failure is reported in `error`, in words.
   */
  checkDomain(argument: _slipway_agent_v1_CheckDomainRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_CheckDomainResponse__Output>): grpc.ClientUnaryCall;
  checkDomain(argument: _slipway_agent_v1_CheckDomainRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_CheckDomainResponse__Output>): grpc.ClientUnaryCall;
  checkDomain(argument: _slipway_agent_v1_CheckDomainRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_CheckDomainResponse__Output>): grpc.ClientUnaryCall;
  checkDomain(argument: _slipway_agent_v1_CheckDomainRequest, callback: grpc.requestCallback<_slipway_agent_v1_CheckDomainResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * The certificate Caddy serves for each hostname now (a TLS handshake on the HTTPS listener), or why there is none.
   */
  DomainCertificates(argument: _slipway_agent_v1_DomainCertificatesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DomainCertificatesResponse__Output>): grpc.ClientUnaryCall;
  DomainCertificates(argument: _slipway_agent_v1_DomainCertificatesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_DomainCertificatesResponse__Output>): grpc.ClientUnaryCall;
  DomainCertificates(argument: _slipway_agent_v1_DomainCertificatesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DomainCertificatesResponse__Output>): grpc.ClientUnaryCall;
  DomainCertificates(argument: _slipway_agent_v1_DomainCertificatesRequest, callback: grpc.requestCallback<_slipway_agent_v1_DomainCertificatesResponse__Output>): grpc.ClientUnaryCall;
  /**
   * The certificate Caddy serves for each hostname now (a TLS handshake on the HTTPS listener), or why there is none.
   */
  domainCertificates(argument: _slipway_agent_v1_DomainCertificatesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DomainCertificatesResponse__Output>): grpc.ClientUnaryCall;
  domainCertificates(argument: _slipway_agent_v1_DomainCertificatesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_DomainCertificatesResponse__Output>): grpc.ClientUnaryCall;
  domainCertificates(argument: _slipway_agent_v1_DomainCertificatesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_DomainCertificatesResponse__Output>): grpc.ClientUnaryCall;
  domainCertificates(argument: _slipway_agent_v1_DomainCertificatesRequest, callback: grpc.requestCallback<_slipway_agent_v1_DomainCertificatesResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * The custom domains this server routes: each gets an HTTPS route to its app's current upstream, an HTTP → HTTPS
   * redirect and a TLS automation policy; domains not listed lose theirs. Kept on disk and restored after restarts.
   * `remote` (several servers, issue 31): other servers' domains, proxied to their owner's mesh listener, served with
   * the certificate the owner obtained (never ordered here); their ACME HTTP-01 challenges forwarded to the owner.
   */
  SyncDomains(argument: _slipway_agent_v1_SyncDomainsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_SyncDomainsResponse__Output>): grpc.ClientUnaryCall;
  SyncDomains(argument: _slipway_agent_v1_SyncDomainsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_SyncDomainsResponse__Output>): grpc.ClientUnaryCall;
  SyncDomains(argument: _slipway_agent_v1_SyncDomainsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_SyncDomainsResponse__Output>): grpc.ClientUnaryCall;
  SyncDomains(argument: _slipway_agent_v1_SyncDomainsRequest, callback: grpc.requestCallback<_slipway_agent_v1_SyncDomainsResponse__Output>): grpc.ClientUnaryCall;
  /**
   * The custom domains this server routes: each gets an HTTPS route to its app's current upstream, an HTTP → HTTPS
   * redirect and a TLS automation policy; domains not listed lose theirs. Kept on disk and restored after restarts.
   * `remote` (several servers, issue 31): other servers' domains, proxied to their owner's mesh listener, served with
   * the certificate the owner obtained (never ordered here); their ACME HTTP-01 challenges forwarded to the owner.
   */
  syncDomains(argument: _slipway_agent_v1_SyncDomainsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_SyncDomainsResponse__Output>): grpc.ClientUnaryCall;
  syncDomains(argument: _slipway_agent_v1_SyncDomainsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_SyncDomainsResponse__Output>): grpc.ClientUnaryCall;
  syncDomains(argument: _slipway_agent_v1_SyncDomainsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_SyncDomainsResponse__Output>): grpc.ClientUnaryCall;
  syncDomains(argument: _slipway_agent_v1_SyncDomainsRequest, callback: grpc.requestCallback<_slipway_agent_v1_SyncDomainsResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface DomainsHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Resolves A, AAAA and the CNAME chain of `hostname` and the TXT values at `txt_name` with the configured resolvers.
   * "No such record" is an empty answer; any other failure is reported in `error`, in words.
   */
  CheckDomain: grpc.handleUnaryCall<_slipway_agent_v1_CheckDomainRequest__Output, _slipway_agent_v1_CheckDomainResponse>;
  
  /**
   * The certificate Caddy serves for each hostname now (a TLS handshake on the HTTPS listener), or why there is none.
   */
  DomainCertificates: grpc.handleUnaryCall<_slipway_agent_v1_DomainCertificatesRequest__Output, _slipway_agent_v1_DomainCertificatesResponse>;
  
  /**
   * The custom domains this server routes: each gets an HTTPS route to its app's current upstream, an HTTP → HTTPS
   * redirect and a TLS automation policy; domains not listed lose theirs. Kept on disk and restored after restarts.
   * `remote` (several servers, issue 31): other servers' domains, proxied to their owner's mesh listener, served with
   * the certificate the owner obtained (never ordered here); their ACME HTTP-01 challenges forwarded to the owner.
   */
  SyncDomains: grpc.handleUnaryCall<_slipway_agent_v1_SyncDomainsRequest__Output, _slipway_agent_v1_SyncDomainsResponse>;
  
}

export interface DomainsDefinition extends grpc.ServiceDefinition {
  CheckDomain: MethodDefinition<_slipway_agent_v1_CheckDomainRequest, _slipway_agent_v1_CheckDomainResponse, _slipway_agent_v1_CheckDomainRequest__Output, _slipway_agent_v1_CheckDomainResponse__Output>
  DomainCertificates: MethodDefinition<_slipway_agent_v1_DomainCertificatesRequest, _slipway_agent_v1_DomainCertificatesResponse, _slipway_agent_v1_DomainCertificatesRequest__Output, _slipway_agent_v1_DomainCertificatesResponse__Output>
  SyncDomains: MethodDefinition<_slipway_agent_v1_SyncDomainsRequest, _slipway_agent_v1_SyncDomainsResponse, _slipway_agent_v1_SyncDomainsRequest__Output, _slipway_agent_v1_SyncDomainsResponse__Output>
}
