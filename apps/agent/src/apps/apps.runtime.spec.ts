import { firstAnswerPollMs } from '../containers/containers';
import { sameEnvironment } from './apps.runtime';

describe('sameEnvironment: may a rollback take the route back to a warm container of its image (decision 0038)', () => {
  const image = ['PATH=/usr/local/bin:/usr/bin', 'NODE_VERSION=24', 'VERSION=v1'];

  it('is the same when the container has the image environment overridden by exactly the wanted variables', () => {
    expect(sameEnvironment([...image.slice(0, 2), 'VERSION=v1', 'PORT=8080', 'GREETING=a=b'], image, { PORT: '8080', GREETING: 'a=b' })).toBe(true);
    expect(sameEnvironment(['PATH=/usr/local/bin:/usr/bin', 'NODE_VERSION=24', 'VERSION=override', 'PORT=8080'], image, { PORT: '8080', VERSION: 'override' })).toBe(true);
  });

  it('differs when a variable changed, was added or was removed since the container was made', () => {
    const made = [...image, 'PORT=8080', 'GREETING=hello'];
    expect(sameEnvironment(made, image, { PORT: '8080', GREETING: 'changed' })).toBe(false);
    expect(sameEnvironment(made, image, { PORT: '8080', GREETING: 'hello', TOKEN: 'x' })).toBe(false);
    expect(sameEnvironment(made, image, { PORT: '8080' })).toBe(false);
    expect(sameEnvironment(made, image, { PORT: '3000', GREETING: 'hello' })).toBe(false);
  });

  it('differs when the image environment is not the one the container got (another image)', () => {
    expect(sameEnvironment([...image, 'PORT=8080'], ['PATH=/usr/bin', 'NODE_VERSION=24', 'VERSION=v1'], { PORT: '8080' })).toBe(false);
  });
});

describe('firstAnswerPollMs: how soon a container that has not answered yet is asked again', () => {
  it('asks HTTP and TCP probes again within a few tens of ms, exec probes and workers less often', () => {
    expect(firstAnswerPollMs({ kind: 'http', port: 8080, healthPath: '' })).toBeLessThanOrEqual(20);
    expect(firstAnswerPollMs({ kind: 'tcp', port: 5432 })).toBeLessThanOrEqual(20);
    expect(firstAnswerPollMs({ kind: 'exec', cmd: ['psql'] })).toBeGreaterThan(20);
    expect(firstAnswerPollMs(null)).toBeGreaterThan(20);
  });
});
