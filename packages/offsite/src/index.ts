export * from './s3';
export * from './sealed-stream';
export * from './upload';
