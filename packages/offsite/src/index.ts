export * from './s3';
export * from './sealed-stream';
export * from './upload';
export * from './checksums';
export * from './multipart';
