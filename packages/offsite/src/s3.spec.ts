import { explainFailure, type S3Target } from './s3';

const target: S3Target = {
  endpoint: 'https://s3.example.com:9000',
  region: 'eu-west-1',
  bucket: 'nightly',
  prefix: 'slipway/',
  pathStyle: false,
  accessKeyId: 'AKIAEXAMPLE',
  secretAccessKey: 'the-secret-never-said',
};

const service = (name: string, status: number) => Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });
const network = (code: string) => Object.assign(new Error(`connect ${code} 1.2.3.4:443`), { code });

describe('explainFailure', () => {
  it.each([
    ['NoSuchBucket', service('NoSuchBucket', 404), 'bucket_missing', 'The bucket nightly does not exist at s3.example.com:9000: create it, or correct the bucket\'s name.'],
    ['InvalidAccessKeyId', service('InvalidAccessKeyId', 403), 'credentials', 'The storage refused the credentials (InvalidAccessKeyId): check the access key id AKIAEXAMPLE and its secret key, and the region eu-west-1.'],
    ['SignatureDoesNotMatch', service('SignatureDoesNotMatch', 403), 'credentials', 'The storage refused the credentials (SignatureDoesNotMatch): check the access key id AKIAEXAMPLE and its secret key, and the region eu-west-1.'],
    ['AccessDenied', service('AccessDenied', 403), 'permission', 'The credentials are valid but may not use the bucket nightly (AccessDenied): allow them to put, get and delete objects under slipway/.'],
    ['a bare 403', service('Forbidden', 403), 'permission', 'The credentials are valid but may not use the bucket nightly (Forbidden): allow them to put, get and delete objects under slipway/.'],
    ['RequestTimeTooSkewed', service('RequestTimeTooSkewed', 403), 'clock_skew', "The storage refused the request because this server's clock differs too much from its own (RequestTimeTooSkewed): set the clock right (NTP)."],
    ['ENOTFOUND', network('ENOTFOUND'), 'dns', "The endpoint's host name s3.example.com:9000 could not be resolved (DNS): check the endpoint's spelling."],
    ['ECONNREFUSED', network('ECONNREFUSED'), 'unreachable', 'The endpoint s3.example.com:9000 could not be reached (ECONNREFUSED): check its address and port, and that this server may connect to it.'],
    ['a self-signed certificate', network('DEPTH_ZERO_SELF_SIGNED_CERT'), 'tls', 'The TLS connection to s3.example.com:9000 failed (DEPTH_ZERO_SELF_SIGNED_CERT): its certificate is not trusted by this server, or the endpoint does not speak HTTPS.'],
    ['a CA certificate served as the server\'s', network('INVALID_PURPOSE'), 'tls', 'The TLS connection to s3.example.com:9000 failed (INVALID_PURPOSE): its certificate is not trusted by this server, or the endpoint does not speak HTTPS.'],
    ['a wrapped TLS error that lost its code', new Error('AWS SDK error wrapper for Error: unable to verify the first certificate'), 'tls', 'The TLS connection to s3.example.com:9000 failed (UNABLE_TO_VERIFY_LEAF_SIGNATURE): its certificate is not trusted by this server, or the endpoint does not speak HTTPS.'],
    ['a wrapped network error (another realm)', new Error('AWS SDK error wrapper for Error: connect ETIMEDOUT 1.2.3.4:443'), 'unreachable', 'The endpoint s3.example.com:9000 could not be reached (ETIMEDOUT): check its address and port, and that this server may connect to it.'],
    ['anything else', service('InternalError', 500), 'other', 'The storage at s3.example.com:9000 answered InternalError.'],
  ])('says what %s means, without the secret key', (_what, err, reason, message) => {
    const explained = explainFailure(err, target);
    expect(explained).toEqual({ reason, message });
    expect(explained.message).not.toContain(target.secretAccessKey);
  });
});
