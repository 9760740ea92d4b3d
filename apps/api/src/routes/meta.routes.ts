import { openApiDocument } from '@slipway/contracts';
import type { HandlerTable } from '../http/operations';

export function metaRoutes(): HandlerTable {
  return { getOpenApiDocument: () => openApiDocument() };
}
