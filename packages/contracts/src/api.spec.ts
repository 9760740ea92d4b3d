import { OPERATIONS, RESOURCES, TAGS } from './api';
import type { OperationSpec } from './resource';

describe('the API assembled from its resources', () => {
  it("files every operation under its resource's tag", () => {
    for (const resource of RESOURCES) {
      for (const [id, spec] of Object.entries(resource.operations) as [string, OperationSpec][]) {
        expect({ id, tag: spec.tag }).toEqual({ id, tag: resource.tag.name });
      }
    }
  });

  it('holds every operation of every resource, and declares each resource tag', () => {
    const count = RESOURCES.reduce((n, r) => n + Object.keys(r.operations).length, 0);
    expect(Object.keys(OPERATIONS)).toHaveLength(count);
    expect(RESOURCES.every((r) => TAGS.includes(r.tag))).toBe(true);
  });

  it('declares each tag name once, as OpenAPI requires', () => {
    const names = TAGS.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
  });
});
