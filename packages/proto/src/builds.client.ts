import * as grpc from '@grpc/grpc-js';
import { AppError, type AgentTarget, type BuildsGateway, type BuildZipInput, type BuildZipResult } from '@slipway/core';
import type { AgentPool } from './client';
import { fromServiceError } from './errors';
import type { BuildEvent__Output } from './generated/slipway/agent/v1/BuildEvent';
import type { BuildsClient } from './generated/slipway/agent/v1/Builds';
import type { UploadZipResult__Output } from './generated/slipway/agent/v1/UploadZipResult';
import { loadBuildsProto } from './load';

export type { BuildsClient };

/** Data messages towards the agent are at least this big (fewer, larger messages move more bytes per second). */
const WRITE_MESSAGE_BYTES = 256 * 1024;

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
    return new Promise((resolve, reject) => {
      let settled = false;
      let wakeWriter: (() => void) | null = null;
      const settle = (e: unknown, res?: { size: number; sha256: string }) => {
        if (settled) return;
        settled = true;
        wakeWriter?.();
        if (e) reject(e);
        else resolve(res!);
      };
      const call = this.client(target).uploadZip((err: grpc.ServiceError | null, res?: UploadZipResult__Output) => {
        if (err) settle(fromServiceError(err, label(target)));
        else settle(null, { size: Number(res!.size), sha256: res!.sha256 });
      });
      const write = async (message: Parameters<typeof call.write>[0]) => {
        // Backpressure: the next chunk of the body is read only once gRPC has taken this one.
        if (!call.write(message) && !settled) {
          await new Promise<void>((r) => {
            wakeWriter = r;
            call.once('drain', () => r());
          });
          wakeWriter = null;
        }
      };
      (async () => {
        await write({ header: { deploymentId } });
        let size = 0;
        let pending: Buffer[] = [];
        let pendingBytes = 0;
        for await (const chunk of body) {
          if (settled) return;
          size += chunk.length;
          pending.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          pendingBytes += chunk.length;
          if (pendingBytes >= WRITE_MESSAGE_BYTES) {
            await write({ data: pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes) });
            pending = [];
            pendingBytes = 0;
          }
        }
        if (settled) return;
        if (pendingBytes > 0) await write({ data: Buffer.concat(pending, pendingBytes) });
        await write({ commit: { size } });
        call.end();
      })().catch((e: unknown) => {
        // The body failed (client gone, limit passed): the agent sees a cancelled stream and drops its partial file.
        call.cancel();
        settle(e);
      });
    });
  }

  buildZip(target: AgentTarget, input: BuildZipInput, onLine: (line: string) => void, signal?: AbortSignal): Promise<BuildZipResult> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new AppError('build_failed', 'The build was cancelled'));
      const call = this.client(target).buildZip(input);
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
        else if (e.line) onLine(e.line);
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

const label = (target: AgentTarget) => (target.name ? `${target.name} (${target.grpcAddress})` : target.grpcAddress);
