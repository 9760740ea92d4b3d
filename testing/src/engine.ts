// What a test platform or a benchmark left on the shared Docker engine, removed by its label only (other runs on the
// same engine keep theirs).
import type Docker from 'dockerode';

/**
 * Removes every container carrying `label` (`key=value`; forced, so running ones go too), then every network carrying
 * it. What is already gone, or still in use by someone else's container, is left without an error.
 */
export async function removeLabelled(docker: Docker, label: string): Promise<void> {
  const filters = { label: [label] };
  for (const c of await docker.listContainers({ all: true, filters })) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
  for (const n of await docker.listNetworks({ filters })) await docker.getNetwork(n.Id).remove().catch(() => undefined);
}
