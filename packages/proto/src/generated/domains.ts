import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { CheckDomainRequest as _slipway_agent_v1_CheckDomainRequest, CheckDomainRequest__Output as _slipway_agent_v1_CheckDomainRequest__Output } from './slipway/agent/v1/CheckDomainRequest';
import type { CheckDomainResponse as _slipway_agent_v1_CheckDomainResponse, CheckDomainResponse__Output as _slipway_agent_v1_CheckDomainResponse__Output } from './slipway/agent/v1/CheckDomainResponse';
import type { CustomDomain as _slipway_agent_v1_CustomDomain, CustomDomain__Output as _slipway_agent_v1_CustomDomain__Output } from './slipway/agent/v1/CustomDomain';
import type { DomainCertificate as _slipway_agent_v1_DomainCertificate, DomainCertificate__Output as _slipway_agent_v1_DomainCertificate__Output } from './slipway/agent/v1/DomainCertificate';
import type { DomainCertificatesRequest as _slipway_agent_v1_DomainCertificatesRequest, DomainCertificatesRequest__Output as _slipway_agent_v1_DomainCertificatesRequest__Output } from './slipway/agent/v1/DomainCertificatesRequest';
import type { DomainCertificatesResponse as _slipway_agent_v1_DomainCertificatesResponse, DomainCertificatesResponse__Output as _slipway_agent_v1_DomainCertificatesResponse__Output } from './slipway/agent/v1/DomainCertificatesResponse';
import type { DomainsClient as _slipway_agent_v1_DomainsClient, DomainsDefinition as _slipway_agent_v1_DomainsDefinition } from './slipway/agent/v1/Domains';
import type { ImportCertificatesResponse as _slipway_agent_v1_ImportCertificatesResponse, ImportCertificatesResponse__Output as _slipway_agent_v1_ImportCertificatesResponse__Output } from './slipway/agent/v1/ImportCertificatesResponse';
import type { RemoteDomain as _slipway_agent_v1_RemoteDomain, RemoteDomain__Output as _slipway_agent_v1_RemoteDomain__Output } from './slipway/agent/v1/RemoteDomain';
import type { RemoveCertificatesResponse as _slipway_agent_v1_RemoveCertificatesResponse, RemoveCertificatesResponse__Output as _slipway_agent_v1_RemoveCertificatesResponse__Output } from './slipway/agent/v1/RemoveCertificatesResponse';
import type { StoredCertificate as _slipway_agent_v1_StoredCertificate, StoredCertificate__Output as _slipway_agent_v1_StoredCertificate__Output } from './slipway/agent/v1/StoredCertificate';
import type { StoredCertificates as _slipway_agent_v1_StoredCertificates, StoredCertificates__Output as _slipway_agent_v1_StoredCertificates__Output } from './slipway/agent/v1/StoredCertificates';
import type { StoredCertificatesRequest as _slipway_agent_v1_StoredCertificatesRequest, StoredCertificatesRequest__Output as _slipway_agent_v1_StoredCertificatesRequest__Output } from './slipway/agent/v1/StoredCertificatesRequest';
import type { SyncDomainsRequest as _slipway_agent_v1_SyncDomainsRequest, SyncDomainsRequest__Output as _slipway_agent_v1_SyncDomainsRequest__Output } from './slipway/agent/v1/SyncDomainsRequest';
import type { SyncDomainsResponse as _slipway_agent_v1_SyncDomainsResponse, SyncDomainsResponse__Output as _slipway_agent_v1_SyncDomainsResponse__Output } from './slipway/agent/v1/SyncDomainsResponse';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  slipway: {
    agent: {
      v1: {
        CheckDomainRequest: MessageTypeDefinition<_slipway_agent_v1_CheckDomainRequest, _slipway_agent_v1_CheckDomainRequest__Output>
        CheckDomainResponse: MessageTypeDefinition<_slipway_agent_v1_CheckDomainResponse, _slipway_agent_v1_CheckDomainResponse__Output>
        CustomDomain: MessageTypeDefinition<_slipway_agent_v1_CustomDomain, _slipway_agent_v1_CustomDomain__Output>
        DomainCertificate: MessageTypeDefinition<_slipway_agent_v1_DomainCertificate, _slipway_agent_v1_DomainCertificate__Output>
        DomainCertificatesRequest: MessageTypeDefinition<_slipway_agent_v1_DomainCertificatesRequest, _slipway_agent_v1_DomainCertificatesRequest__Output>
        DomainCertificatesResponse: MessageTypeDefinition<_slipway_agent_v1_DomainCertificatesResponse, _slipway_agent_v1_DomainCertificatesResponse__Output>
        Domains: SubtypeConstructor<typeof grpc.Client, _slipway_agent_v1_DomainsClient> & { service: _slipway_agent_v1_DomainsDefinition }
        ImportCertificatesResponse: MessageTypeDefinition<_slipway_agent_v1_ImportCertificatesResponse, _slipway_agent_v1_ImportCertificatesResponse__Output>
        RemoteDomain: MessageTypeDefinition<_slipway_agent_v1_RemoteDomain, _slipway_agent_v1_RemoteDomain__Output>
        RemoveCertificatesResponse: MessageTypeDefinition<_slipway_agent_v1_RemoveCertificatesResponse, _slipway_agent_v1_RemoveCertificatesResponse__Output>
        StoredCertificate: MessageTypeDefinition<_slipway_agent_v1_StoredCertificate, _slipway_agent_v1_StoredCertificate__Output>
        StoredCertificates: MessageTypeDefinition<_slipway_agent_v1_StoredCertificates, _slipway_agent_v1_StoredCertificates__Output>
        StoredCertificatesRequest: MessageTypeDefinition<_slipway_agent_v1_StoredCertificatesRequest, _slipway_agent_v1_StoredCertificatesRequest__Output>
        SyncDomainsRequest: MessageTypeDefinition<_slipway_agent_v1_SyncDomainsRequest, _slipway_agent_v1_SyncDomainsRequest__Output>
        SyncDomainsResponse: MessageTypeDefinition<_slipway_agent_v1_SyncDomainsResponse, _slipway_agent_v1_SyncDomainsResponse__Output>
      }
    }
  }
}

