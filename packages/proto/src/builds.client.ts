import * as grpc from '@grpc/grpc-js';
import { AppError, type AgentTarget, type BuildGithubInput, type BuildsGateway, type BuildZipInput, type BuildZipResult } from '@slipway/core';
import type { AgentPool } from './client';
import { fromServiceError } from './errors';
import type { BuildEvent__Output } from './generated/slipway/agent/v1/BuildEvent';
import type { BuildsClient } from './generated/slipway/agent/v1/Builds';
import type { UploadZipResult__Output } from './generated/slipway/agent/v1/UploadZipResult';
import { loadBuildsProto } from './load';
import { streamUpload } from './stream-upload';
import { label } from './unary';

export type { BuildsClient };


/**
 * The `slipway.agent.v1.Builds` service of each server, over the channel of the pool's connection to it (one
 * HTTP/2 connection per server, mutual TLS); implements the BuildsGateway port of @slipway/core.
 */
export class BuildsPool implements BuildsGateway {
  constructor(private readonly agents: AgentPool) {}

  client(target: AgentTarget): BuildsClient {
    const { Builds } = loadBuildsProto().slipway.agent.v1;
    return this.agents.connection(target).service('builds', (address, credentials, options) => new Builds(address, credentials, options));
  }

  uploadZip(target: AgentTarget, deploymentId: string, body: AsyncIterable<Uint8Array>): Promise<{ size: number; sha256: string }> {
    return streamUpload(
      (cb) => this.client(target).uploadZip(cb),
      { deploymentId },
      body,
      (res: UploadZipResult__Output) => ({ size: Number(res.size), sha256: res.sha256 }),
      label(target),
    );
  }

  buildZip(target: AgentTarget, input: BuildZipInput, onLine: (line: string) => void, signal?: AbortSignal): Promise<BuildZipResult> {
    return this.streamBuild(target, () => this.client(target).buildZip(input), onLine, signal);
  }

  /** A GitHub commit built on the agent (issue 16); the token rides in this one request and nowhere else. */
  buildGithub(target: AgentTarget, input: BuildGithubInput, onLine: (line: string) => void, signal?: AbortSignal): Promise<BuildZipResult> {
    return this.streamBuild(target, () => this.client(target).buildGithub(input), onLine, signal);
  }

  private streamBuild(
    target: AgentTarget,
    start: () => grpc.ClientReadableStream<BuildEvent__Output>,
    onLine: (line: string) => void,
    signal?: AbortSignal,
  ): Promise<BuildZipResult> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new AppError('build_failed', 'The build was cancelled'));
      const call = start();
      let result: BuildZipResult | null = null;
      let cancelled = false;
      const onAbort = () => {
        cancelled = true;
        call.cancel();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = (e: unknown) => {
        signal?.removeEventListener('abort', onAbort);
        if (cancelled) reject(new AppError('build_failed', 'The build was cancelled'));
        else if (e) reject(e);
        else if (result) resolve(result);
        else reject(new AppError('node_unavailable', `The agent at ${label(target)} ended the build without a result`));
      };
      call.on('data', (e: BuildEvent__Output) => {
        if (e.result) result = { imageId: e.result.imageId, imageRef: e.result.imageRef, language: e.result.language };
        // One message may carry many lines, joined by \n (a noisy build would otherwise be a message per line).
        else if (e.line) for (const line of e.line.split('\n')) onLine(line);
      });
      call.on('error', (e: grpc.ServiceError) => done(fromServiceError(e, label(target))));
      call.on('end', () => done(null));
    });
  }

  discardUpload(target: AgentTarget, deploymentId: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.client(target).discardUpload({ deploymentId }, { deadline: Date.now() + 30_000 }, (err) => (err ? reject(fromServiceError(err, label(target))) : resolve()));
    });
  }

  close(): void {
    // The clients ride on the agent pool's connections, which close them.
  }
}

