// slipway-agent: `run` serves the gRPC API of this server; `join --url URL --token TOKEN` enrolls it.
import { parseArgs } from 'node:util';
import { ConfigError, createLogger, keepMemoryReducerWorking, loadConfig } from '@slipway/config';
import { NotEnrolledError, startAgent } from './agent';
import { join, JoinError } from './node/join';
import { advertisedAddress } from './node/node-info';

const USAGE = `Usage: slipway-agent <command> [options]

Commands:
  run                               serve this server's gRPC API (mutual TLS) until SIGTERM
  join --url URL --token TOKEN      enroll this server with the control plane (once; its key stays here)

Options:
  -h, --help                        show this help

Settings come from the environment: SLIPWAY_AGENT_LISTEN, SLIPWAY_AGENT_ADVERTISE_ADDRESS,
SLIPWAY_AGENT_DATA_DIR, SLIPWAY_AGENT_NODE_NAME, SLIPWAY_AGENT_PUBLIC_IPV4, DOCKER_SOCKET, SLIPWAY_PLATFORM_ID,
SLIPWAY_NETWORK_RANGE, SLIPWAY_NETWORK_SUBNET_PREFIX (see the README's settings table).
Exit codes: 0 done, 1 failed, 2 usage error, 3 enrollment refused or not enrolled.`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '-h' || command === '--help' || command === 'help') {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  if (command === 'join') {
    const { values } = parseArgs({ args: rest, options: { url: { type: 'string' }, token: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
    if (values.help) {
      console.log('Usage: slipway-agent join --url URL --token TOKEN\n\nEnrolls this server with a one-time token from `slipway-admin enroll-token create`.\nDoes nothing when this server is already enrolled.');
      return 0;
    }
    if (!values.url || !values.token) {
      console.error('join needs --url and --token\n\n' + USAGE);
      return 2;
    }
    const config = loadConfig('agent');
    try {
      const result = await join({
        url: values.url,
        token: values.token,
        dataDir: config.agent.dataDir,
        nodeName: config.agent.nodeName,
        advertiseAddress: advertisedAddress(config.agent.listen, config.agent.advertiseAddress, config.agent.publicIpv4),
        publicIpv4: [...config.agent.publicIpv4],
        capacity: config.agent.capacity,
      });
      console.log(result.status === 'joined' ? `joined as node ${result.nodeId}` : `already enrolled as node ${result.nodeId}`);
      return 0;
    } catch (e) {
      if (e instanceof JoinError) {
        console.error(e.message);
        return 3;
      }
      throw e;
    }
  }
  if (command === 'run') {
    const { values } = parseArgs({ args: rest, options: { help: { type: 'boolean', short: 'h' } } });
    if (values.help) {
      console.log('Usage: slipway-agent run\n\nServes the gRPC API on SLIPWAY_AGENT_LISTEN with the enrollment under SLIPWAY_AGENT_DATA_DIR/tls.');
      return 0;
    }
    const config = loadConfig('agent');
    const logger = createLogger('agent', config.log.level);
    keepMemoryReducerWorking();
    let agent;
    try {
      agent = await startAgent({
        listen: config.agent.listen,
        advertiseAddress: advertisedAddress(config.agent.listen, config.agent.advertiseAddress, config.agent.publicIpv4),
        dataDir: config.agent.dataDir,
        nodeName: config.agent.nodeName,
        publicIpv4: [...config.agent.publicIpv4],
        capacity: config.agent.capacity,
        mesh: config.mesh,
        dockerSocket: config.agent.dockerSocket,
        caddyAdminUrl: config.agent.caddyAdminUrl,
        ...(config.agent.haproxyDir ? { haproxyDir: config.agent.haproxyDir } : {}),
        maxUploadBytes: config.limits.uploadZipBytes,
        maxFileBytes: config.limits.uploadFileBytes,
        logger,
        platformId: config.agent.platformId,
        networks: config.agent.network,
        domains: config.agent.domains,
        readySettleMs: config.agent.readySettleMs,
        databaseImages: { postgres: config.images.postgres, mysql: config.images.mysql, redis: config.images.redis, mongodb: config.images.mongodb },
        // Builds of uploads: FROM the configured runtime images, trusting the extra CA bundle when one is set.
        build: {
          images: { node: config.images.node, nodeBuild: config.images.nodeBuild, python: config.images.python, static: config.images.static },
          runtimes: {
            node: { supported: [...config.runtimes.node.majors], default: config.runtimes.node.default },
            python: { supported: [...config.runtimes.python.versions], default: config.runtimes.python.default },
          },
          extraCaBundle: config.agent.extraCaBundle,
          ...config.agent.build,
        },
        appTmpMb: config.agent.appTmpMb,
        removalConcurrency: config.agent.removalConcurrency,
        diskReserve: config.agent.diskReserve,
        metrics: { intervalMs: config.metrics.intervalMs, folderIntervalMs: config.metrics.folderIntervalMs },
      });
    } catch (e) {
      if (e instanceof NotEnrolledError) {
        console.error(e.message);
        return 3;
      }
      throw e;
    }
    const running = agent;
    await new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        logger.info({ signal }, 'shutting down');
        void running.close().then(resolve);
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
    });
    return 0;
  }
  console.error(`unknown command "${command}"\n\n${USAGE}`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e instanceof ConfigError ? e.message : e);
    process.exit(1);
  },
);
