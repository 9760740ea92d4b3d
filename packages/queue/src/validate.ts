import Ajv, { type ValidateFunction } from 'ajv';
import { isJobName, JOB_CATALOG, JOB_NAMES, type JobName } from './catalog';

const ajv = new Ajv({ allErrors: true });
const validators = new Map<JobName, ValidateFunction>(JOB_NAMES.map((n) => [n, ajv.compile(JOB_CATALOG[n].payloadSchema)]));

export class InvalidPayloadError extends Error {
  constructor(
    readonly jobName: string,
    readonly problems: string[],
  ) {
    super(`Invalid payload for ${jobName}: ${problems.join('; ')}`);
    this.name = 'InvalidPayloadError';
  }
}

/** Throws InvalidPayloadError for an unknown job name or a payload its schema refuses. */
export function assertPayload(name: string, payload: unknown): asserts name is JobName {
  if (!isJobName(name)) throw new InvalidPayloadError(name, ['no such job in the catalog']);
  const validate = validators.get(name)!;
  if (!validate(payload)) {
    throw new InvalidPayloadError(name, (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`));
  }
}
