import { refusesChecksums } from './checksums';

// Which refusals mean "this storage does not take S3's checksum headers" (the upload then goes on without them and is
// read back whole), as opposed to a refusal for any other reason (the upload fails with it).
describe('refusesChecksums', () => {
  const error = (name: string, status: number, message = '') => Object.assign(new Error(message), { name, $metadata: { httpStatusCode: status } });

  it.each([
    ['NotImplemented', 501, 'A header you provided implies functionality that is not implemented.'],
    ['NotImplemented', 400, ''],
    ['InvalidArgument', 400, 'x-amz-checksum-algorithm is not supported'],
    ['InvalidRequest', 400, 'Checksum Type mismatch occurred'],
    ['BadRequest', 400, 'Unsupported checksum header x-amz-checksum-sha256'],
  ])('%s (%i) "%s": refused the checksums', (name, status, message) => {
    expect(refusesChecksums(error(name, status, message))).toBe(true);
  });

  it.each([
    ['NoSuchBucket', 404, 'The specified bucket does not exist'],
    ['AccessDenied', 403, 'Access Denied'],
    ['BadDigest', 400, 'The SHA256 you specified did not match the calculated checksum.'],
    ['InvalidArgument', 400, 'Part number must be an integer between 1 and 10000'],
  ])('%s (%i) "%s": another refusal', (name, status, message) => {
    expect(refusesChecksums(error(name, status, message))).toBe(false);
  });
});
