import type { ResourceEvent, ResourceEventList } from '@slipway/contracts';

/**
 * What the platform did to an app or a database that its owners should know of (issue 32: a move to another server),
 * kept beside the resource and listed on it (`GET …/apps/{id}/events`, `GET …/databases/{id}/events`). Written by the
 * work that did it in the same transaction (a move's switch), so an event is never told of what did not happen.
 */
export interface ResourceEventRecord {
  id: string;
  kind: ResourceEvent['kind'];
  message: string;
  at: Date;
}

export interface ResourceEventReader {
  /** Newest first: the events of one app or database of the workspace. */
  list(scope: { workspaceId: string; resourceId: string }, limit: number): Promise<ResourceEventRecord[]>;
}

/** How many events a list answers. */
export const RESOURCE_EVENTS_LIMIT = 50;

export const eventList = (rows: ResourceEventRecord[]): ResourceEventList => ({
  data: rows.map((e) => ({ id: e.id, kind: e.kind, message: e.message, at: e.at.toISOString() })),
});
