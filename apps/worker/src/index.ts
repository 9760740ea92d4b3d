export { startWorkerRuntime, type WorkerRuntime } from './runtime';
export { runWorkers, type WorkerPool, type WorkerPoolOptions } from './workers';
export { buildProcessors, type Processors, type WorkerServices } from './processors';
export { ContainerEventSubscriptions } from './container-events';
