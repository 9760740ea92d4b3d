// TypeScript types derived from the schemas of the document: a change to a schema changes the type,
// and tsc finds every service and route that no longer fits.
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { OPERATIONS, OperationId } from './api';
import type * as S from './schemas';

type From<T> = T extends JSONSchema ? FromSchema<T> : never;

export type User = From<typeof S.User>;
export type Role = From<typeof S.Role>;
export type Ok = From<typeof S.Ok>;
export type Workspace = From<typeof S.Workspace>;
export type WorkspacePlan = From<typeof S.WorkspacePlan>;
export type CatalogPlan = From<typeof S.CatalogPlan>;
export type PlanLimits = From<typeof S.PlanLimits>;
export type ResourceSize = From<typeof S.ResourceSize>;
export type Minimums = From<typeof S.Minimums>;
export type Member = From<typeof S.Member>;
export type ApiToken = From<typeof S.ApiToken>;
export type CreatedApiToken = From<typeof S.CreatedApiToken>;
export type App = From<typeof S.App>;
export type AppStatus = From<typeof S.AppStatus>;
export type StatusDetail = From<typeof S.StatusDetail>;
export type EnvVariable = From<typeof S.EnvVariable>;
export type Deployment = From<typeof S.Deployment>;
export type DeploymentStatus = From<typeof S.DeploymentStatus>;
export type DeploymentPage = From<typeof S.DeploymentPage>;
export type LogChunk = From<typeof S.LogChunk>;
export type ResourceEvent = From<typeof S.ResourceEvent>;
export type ResourceEventList = From<typeof S.ResourceEventList>;
export type CreateAppRequest = From<typeof S.CreateAppRequest>;
export type UpdateAppRequest = From<typeof S.UpdateAppRequest>;
export type PutEnvRequest = From<typeof S.PutEnvRequest>;
export type CreateDeploymentRequest = From<typeof S.CreateDeploymentRequest>;

export type SignupRequest = From<typeof S.SignupRequest>;
export type LoginRequest = From<typeof S.LoginRequest>;
export type CreateWorkspaceRequest = From<typeof S.CreateWorkspaceRequest>;
export type UpdateWorkspaceRequest = From<typeof S.UpdateWorkspaceRequest>;
export type AddMemberRequest = From<typeof S.AddMemberRequest>;
export type UpdateMemberRequest = From<typeof S.UpdateMemberRequest>;
export type CreateTokenRequest = From<typeof S.CreateTokenRequest>;
export type FileListing = From<typeof S.FileListing>;
export type FileEntryDto = From<typeof S.FileEntry>;
export type RenameFileRequest = From<typeof S.RenameFileRequest>;
export type Domain = From<typeof S.Domain>;
export type DomainCheck = From<typeof S.DomainCheck>;
export type DomainCertificate = From<typeof S.DomainCertificate>;
export type CreateDomainRequest = From<typeof S.CreateDomainRequest>;
// Databases (issue 12)
export type Database = From<typeof S.Database>;
export type DatabaseStatus = From<typeof S.DatabaseStatus>;
export type DatabaseConnection = From<typeof S.DatabaseConnection>;
export type DatabaseEngineInfo = From<typeof S.DatabaseEngineInfo>;
export type CreateDatabaseRequest = From<typeof S.CreateDatabaseRequest>;
export type UpdateDatabaseRequest = From<typeof S.UpdateDatabaseRequest>;
export type PutDatabasePublicRequest = From<typeof S.PutDatabasePublicRequest>;
export type ConnectDatabaseRequest = From<typeof S.ConnectDatabaseRequest>;

type Ops = typeof OPERATIONS;
/** The validated query of an operation (numbers already coerced; defaults filled in). */
export type QueryOf<K extends OperationId> = Ops[K] extends { query: infer Q } ? From<Q> : undefined;
/** The validated body of an operation (undefined when it takes none). */
export type RequestBodyOf<K extends OperationId> = Ops[K] extends { body: infer B } ? From<B> : undefined;
/** The body of an operation's success response. */
export type ResponseBodyOf<K extends OperationId> = From<Ops[K]['success']['schema']>;
/** `{ workspaceId: string, ... }` from the path template. */
export type PathParamsOf<K extends OperationId> = ParamsOf<Ops[K]['path']>;
type ParamsOf<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? { [N in Name]: string } & ParamsOf<Rest> : unknown;
export type Metrics = From<typeof S.Metrics>;
export type MetricsRange = (typeof S.METRICS_RANGES)[number];
export type MetricSeriesName = keyof Metrics['series'];

// Database backups (issue 13)
export type Backup = From<typeof S.Backup>;
export type BackupPage = From<typeof S.BackupPage>;
export type RestoreBackupRequest = From<typeof S.RestoreBackupRequest>;
export type RestoreResult = From<typeof S.RestoreResult>;

// Backup destinations (issue 33)
export type BackupDestination = From<typeof S.BackupDestination>;
export type CreateBackupDestinationRequest = From<typeof S.CreateBackupDestinationRequest>;
export type UpdateBackupDestinationRequest = From<typeof S.UpdateBackupDestinationRequest>;
export type BackupDestinationTest = From<typeof S.BackupDestinationTest>;
export type DatabaseBackupDestination = From<typeof S.DatabaseBackupDestination>;
