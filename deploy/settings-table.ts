// Prints the README's settings table from packages/config/src/settings.ts: `npx tsx deploy/settings-table.ts`.
import { SETTINGS } from '../packages/config/src/settings';

const rows = SETTINGS.map((s) => {
  const def = s.secret ? 'none in production (setup writes a random one)' : s.default === undefined ? '(required)' : `\`${JSON.stringify(s.default)}\``;
  return `| \`${s.env}\` | ${s.roles.join(', ')} | ${def} | ${s.description} |`;
});
console.log(['| setting | read by | default | meaning |', '|---|---|---|---|', ...rows].join('\n'));
