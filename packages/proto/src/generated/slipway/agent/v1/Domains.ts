// Original file: ../../proto/slipway/agent/v1/domains.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { CheckDomainRequest as _slipway_agent_v1_CheckDomainRequest, CheckDomainRequest__Output as _slipway_agent_v1_CheckDomainRequest__Output } from '../../../slipway/agent/v1/CheckDomainRequest';
import type { CheckDomainResponse as _slipway_agent_v1_CheckDomainResponse, CheckDomainResponse__Output as _slipway_agent_v1_CheckDomainResponse__Output } from '../../../slipway/agent/v1/CheckDomainResponse';
import type { DomainCertificatesRequest as _slipway_agent_v1_DomainCertificatesRequest, DomainCertificatesRequest__Output as _slipway_agent_v1_DomainCertificatesRequest__Output } from '../../../slipway/agent/v1/DomainCertificatesRequest';
import type { DomainCertificatesResponse as _slipway_agent_v1_DomainCertificatesResponse, DomainCertificatesResponse__Output as _slipway_agent_v1_DomainCertificatesResponse__Output } from '../../../slipway/agent/v1/DomainCertificatesResponse';
import type { ImportCertificatesResponse as _slipway_agent_v1_ImportCertificatesResponse, ImportCertificatesResponse__Output as _slipway_agent_v1_ImportCertificatesResponse__Output } from '../../../slipway/agent/v1/ImportCertificatesResponse';
import type { RemoveCertificatesResponse as _slipway_agent_v1_RemoveCertificatesResponse, RemoveCertificatesResponse__Output as _slipway_agent_v1_RemoveCertificatesResponse__Output } from '../../../slipway/agent/v1/RemoveCertificatesResponse';
import type { StoredCertificates as _slipway_agent_v1_StoredCertificates, StoredCertificates__Output as _slipway_agent_v1_StoredCertificates__Output } from '../../../slipway/agent/v1/StoredCertificates';
import type { StoredCertificatesRequest as _slipway_agent_v1_StoredCertificatesRequest, StoredCertificatesRequest__Output as _slipway_agent_v1_StoredCertificatesRequest__Output } from '../../../slipway/agent/v1/StoredCertificatesRequest';
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
   * A workspace move carries its custom domains' certificates to the new owner (issue 32,
   * docs/decisions/0037-drain-and-moves.md): the entries this server's Caddy stored for those hostnames (chain, key and
   * metadata, under its issuer's folder; hostnames without one are absent) …
   */
  ExportCertificates(argument: _slipway_agent_v1_StoredCertificatesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_StoredCertificates__Output>): grpc.ClientUnaryCall;
  ExportCertificates(argument: _slipway_agent_v1_StoredCertificatesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_StoredCertificates__Output>): grpc.ClientUnaryCall;
  ExportCertificates(argument: _slipway_agent_v1_StoredCertificatesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_StoredCertificates__Output>): grpc.ClientUnaryCall;
  ExportCertificates(argument: _slipway_agent_v1_StoredCertificatesRequest, callback: grpc.requestCallback<_slipway_agent_v1_StoredCertificates__Output>): grpc.ClientUnaryCall;
  /**
   * A workspace move carries its custom domains' certificates to the new owner (issue 32,
   * docs/decisions/0037-drain-and-moves.md): the entries this server's Caddy stored for those hostnames (chain, key and
   * metadata, under its issuer's folder; hostnames without one are absent) …
   */
  exportCertificates(argument: _slipway_agent_v1_StoredCertificatesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_StoredCertificates__Output>): grpc.ClientUnaryCall;
  exportCertificates(argument: _slipway_agent_v1_StoredCertificatesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_StoredCertificates__Output>): grpc.ClientUnaryCall;
  exportCertificates(argument: _slipway_agent_v1_StoredCertificatesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_StoredCertificates__Output>): grpc.ClientUnaryCall;
  exportCertificates(argument: _slipway_agent_v1_StoredCertificatesRequest, callback: grpc.requestCallback<_slipway_agent_v1_StoredCertificates__Output>): grpc.ClientUnaryCall;
  
  /**
   * … written into the new owner's certificate storage, where Caddy looks before it orders one: the new owner serves
   * and later renews the same certificate, no new ACME order. Replaces what is stored for those hostnames.
   */
  ImportCertificates(argument: _slipway_agent_v1_StoredCertificates, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_ImportCertificatesResponse__Output>): grpc.ClientUnaryCall;
  ImportCertificates(argument: _slipway_agent_v1_StoredCertificates, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_ImportCertificatesResponse__Output>): grpc.ClientUnaryCall;
  ImportCertificates(argument: _slipway_agent_v1_StoredCertificates, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_ImportCertificatesResponse__Output>): grpc.ClientUnaryCall;
  ImportCertificates(argument: _slipway_agent_v1_StoredCertificates, callback: grpc.requestCallback<_slipway_agent_v1_ImportCertificatesResponse__Output>): grpc.ClientUnaryCall;
  /**
   * … written into the new owner's certificate storage, where Caddy looks before it orders one: the new owner serves
   * and later renews the same certificate, no new ACME order. Replaces what is stored for those hostnames.
   */
  importCertificates(argument: _slipway_agent_v1_StoredCertificates, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_ImportCertificatesResponse__Output>): grpc.ClientUnaryCall;
  importCertificates(argument: _slipway_agent_v1_StoredCertificates, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_ImportCertificatesResponse__Output>): grpc.ClientUnaryCall;
  importCertificates(argument: _slipway_agent_v1_StoredCertificates, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_ImportCertificatesResponse__Output>): grpc.ClientUnaryCall;
  importCertificates(argument: _slipway_agent_v1_StoredCertificates, callback: grpc.requestCallback<_slipway_agent_v1_ImportCertificatesResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * The stored certificates of those hostnames removed (the source once moved, the target of a move undone); a
   * hostname this server owns now is kept.
   */
  RemoveCertificates(argument: _slipway_agent_v1_StoredCertificatesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_RemoveCertificatesResponse__Output>): grpc.ClientUnaryCall;
  RemoveCertificates(argument: _slipway_agent_v1_StoredCertificatesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_RemoveCertificatesResponse__Output>): grpc.ClientUnaryCall;
  RemoveCertificates(argument: _slipway_agent_v1_StoredCertificatesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_RemoveCertificatesResponse__Output>): grpc.ClientUnaryCall;
  RemoveCertificates(argument: _slipway_agent_v1_StoredCertificatesRequest, callback: grpc.requestCallback<_slipway_agent_v1_RemoveCertificatesResponse__Output>): grpc.ClientUnaryCall;
  /**
   * The stored certificates of those hostnames removed (the source once moved, the target of a move undone); a
   * hostname this server owns now is kept.
   */
  removeCertificates(argument: _slipway_agent_v1_StoredCertificatesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_RemoveCertificatesResponse__Output>): grpc.ClientUnaryCall;
  removeCertificates(argument: _slipway_agent_v1_StoredCertificatesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_slipway_agent_v1_RemoveCertificatesResponse__Output>): grpc.ClientUnaryCall;
  removeCertificates(argument: _slipway_agent_v1_StoredCertificatesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_slipway_agent_v1_RemoveCertificatesResponse__Output>): grpc.ClientUnaryCall;
  removeCertificates(argument: _slipway_agent_v1_StoredCertificatesRequest, callback: grpc.requestCallback<_slipway_agent_v1_RemoveCertificatesResponse__Output>): grpc.ClientUnaryCall;
  
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
   * A workspace move carries its custom domains' certificates to the new owner (issue 32,
   * docs/decisions/0037-drain-and-moves.md): the entries this server's Caddy stored for those hostnames (chain, key and
   * metadata, under its issuer's folder; hostnames without one are absent) …
   */
  ExportCertificates: grpc.handleUnaryCall<_slipway_agent_v1_StoredCertificatesRequest__Output, _slipway_agent_v1_StoredCertificates>;
  
  /**
   * … written into the new owner's certificate storage, where Caddy looks before it orders one: the new owner serves
   * and later renews the same certificate, no new ACME order. Replaces what is stored for those hostnames.
   */
  ImportCertificates: grpc.handleUnaryCall<_slipway_agent_v1_StoredCertificates__Output, _slipway_agent_v1_ImportCertificatesResponse>;
  
  /**
   * The stored certificates of those hostnames removed (the source once moved, the target of a move undone); a
   * hostname this server owns now is kept.
   */
  RemoveCertificates: grpc.handleUnaryCall<_slipway_agent_v1_StoredCertificatesRequest__Output, _slipway_agent_v1_RemoveCertificatesResponse>;
  
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
  ExportCertificates: MethodDefinition<_slipway_agent_v1_StoredCertificatesRequest, _slipway_agent_v1_StoredCertificates, _slipway_agent_v1_StoredCertificatesRequest__Output, _slipway_agent_v1_StoredCertificates__Output>
  ImportCertificates: MethodDefinition<_slipway_agent_v1_StoredCertificates, _slipway_agent_v1_ImportCertificatesResponse, _slipway_agent_v1_StoredCertificates__Output, _slipway_agent_v1_ImportCertificatesResponse__Output>
  RemoveCertificates: MethodDefinition<_slipway_agent_v1_StoredCertificatesRequest, _slipway_agent_v1_RemoveCertificatesResponse, _slipway_agent_v1_StoredCertificatesRequest__Output, _slipway_agent_v1_RemoveCertificatesResponse__Output>
  SyncDomains: MethodDefinition<_slipway_agent_v1_SyncDomainsRequest, _slipway_agent_v1_SyncDomainsResponse, _slipway_agent_v1_SyncDomainsRequest__Output, _slipway_agent_v1_SyncDomainsResponse__Output>
}
