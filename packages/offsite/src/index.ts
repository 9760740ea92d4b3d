export * from './s3';
