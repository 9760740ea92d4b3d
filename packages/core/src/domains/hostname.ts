import { isIP } from 'node:net';
import { domainToASCII, domainToUnicode } from 'node:url';
import { AppError } from '../errors';

/** Why a hostname cannot be a custom domain: `details[0].reason` of the 400 invalid_hostname. */
export type HostnameProblem = 'invalid' | 'ip_address' | 'localhost' | 'single_label' | 'wildcard' | 'apps_domain';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

const MESSAGES: Record<HostnameProblem, string> = {
  invalid: 'The hostname is not a valid DNS name',
  ip_address: 'An IP address cannot be a custom domain: use a DNS name',
  localhost: 'localhost names cannot be custom domains',
  single_label: 'The hostname needs at least two labels (example.com, www.example.com)',
  wildcard: 'Wildcard hostnames are not supported: add each name',
  apps_domain: "Names under the platform's own apps domain are given to apps already: use a domain of your own",
};

/**
 * A custom domain's name as stored: lowercase ASCII (an internationalised name in its punycode form), no trailing
 * dot; its Unicode form for display. Throws 400 invalid_hostname with the rule it breaks.
 */
export function normalizeHostname(input: string, appsDomain: string): { ascii: string; unicode: string } {
  const fail = (reason: HostnameProblem): never => {
    throw new AppError('invalid_hostname', MESSAGES[reason], [{ field: '/hostname', reason }]);
  };
  let name = input.trim().toLowerCase();
  if (name.endsWith('.')) name = name.slice(0, -1);
  const bare = name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name;
  if (isIP(bare)) fail('ip_address');
  if (name.includes('*')) fail('wildcard');
  if (name === '' || /[\s/\\:@?#]/.test(name)) fail('invalid');
  const ascii = domainToASCII(name);
  if (!ascii || ascii.length > 253) fail('invalid');
  const labels = ascii.split('.');
  if (labels.some((l) => !LABEL.test(l))) fail('invalid');
  // A name whose last label is all digits is an IPv4 address in some spelling (10.1, 0x7f.1) or no name at all.
  if (/^[0-9]+$/.test(labels[labels.length - 1]!) || /^0x[0-9a-f]*$/.test(labels[labels.length - 1]!)) fail(isIP(ascii) ? 'ip_address' : 'invalid');
  const apps = appsDomain.toLowerCase();
  if (ascii === apps || ascii.endsWith(`.${apps}`)) fail('apps_domain');
  if (ascii === 'localhost' || ascii.endsWith('.localhost')) fail('localhost');
  if (labels.length < 2) fail('single_label');
  return { ascii, unicode: domainToUnicode(ascii) || ascii };
}
