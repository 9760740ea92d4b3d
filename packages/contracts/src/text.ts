// The text rule for every string a request carries (API-DECISIONS "Text in requests"). document.ts marks each
// string schema of a request body or query parameter with the keyword below, and validation.ts enforces it with
// ajv, so the rule is written once and published in the document rather than repeated in every schema.

/** The schema keyword that carries the rule, e.g. `"x-slipway-text": "line"`. */
export const TEXT_KEYWORD = 'x-slipway-text';

/**
 * - `line`: names, slugs, keys, commands, hosts, passwords, cursors: no control character (U+0000–U+001F, U+007F)
 *   and no lone surrogate.
 * - `multiline`: values that must arrive byte for byte (environment variable values, a PEM): tab, LF, CR and the
 *   other control characters are kept; only U+0000 (which PostgreSQL text cannot hold) and lone surrogates are refused.
 * - `path`: files-API paths: lone surrogates are refused here; control characters are the files service's to refuse
 *   (400 `invalid_path`, as API-DECISIONS says for paths).
 */
export type TextKind = 'line' | 'multiline' | 'path';

/** The strings that are not single-line, by their place in the document; every other request string is `line`. */
export const TEXT_EXCEPTIONS: Readonly<Record<string, TextKind>> = {
  '#/components/schemas/PutEnvRequest/properties/variables/items/properties/value': 'multiline',
  '#/components/schemas/EnrollAgentRequest/properties/csr': 'multiline',
  '#/components/schemas/RenameFileRequest/properties/from': 'path',
  '#/components/schemas/RenameFileRequest/properties/to': 'path',
  // Query parameters, by name: every `path` parameter is a files-API path.
  'query:path': 'path',
};

/** The rule in words, for the document's description. */
export const TEXT_RULE_DESCRIPTION =
  'Text in requests: every string of a body or query string is single-line unless its schema says otherwise ' +
  `(\`${TEXT_KEYWORD}\`): \`line\` strings refuse U+0000–U+001F, U+007F and lone surrogates; \`multiline\` strings ` +
  '(environment variable values, the CSR) keep tab, LF, CR exactly and refuse only U+0000 and lone surrogates; ' +
  '`path` strings (files API) refuse lone surrogates, and control characters answer 400 `invalid_path`. A refused ' +
  'string answers 400 `validation_failed` naming the field. Bodies must be valid UTF-8 (400 `invalid_json`). ' +
  'Numeric query parameters are decimal integers within their bounds (`1e3`, `0x10`, `1.5`, `-1`, `NaN`, empty: 400).';

const KIND_NOTE: Record<Exclude<TextKind, 'line'>, string> = {
  multiline: 'Multi-line: tab, LF and CR are kept exactly; U+0000 and lone surrogates are refused.',
  path: 'Lone surrogates are refused.',
};

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why `value` breaks the rule of `kind`, or null when it does not. */
export function textProblem(kind: TextKind, value: string): string | null {
  if (LONE_SURROGATE.test(value)) return 'must not contain a lone surrogate (text that is not valid Unicode)';
  if (kind === 'line' && CONTROL.test(value)) return 'must not contain control characters (U+0000–U+001F, U+007F)';
  if (kind === 'multiline' && value.includes('\u0000')) return 'must not contain U+0000';
  return null;
}

type Node = Record<string, unknown>;

/**
 * Marks, in place, every string schema that a request body or query parameter of `document` reaches (through
 * `$ref`s into components too) with its text kind, and adds the note of non-`line` kinds to their description.
 * Schemas with `enum` or `const` are left alone: they accept only the document's own strings.
 */
export function markRequestText(document: Node): void {
  const components = ((document.components as Node | undefined)?.schemas ?? {}) as Record<string, Node>;
  const seen = new Set<string>();
  const used = new Set<string>();

  const walk = (node: unknown, pointer: string, query?: string): void => {
    if (!node || typeof node !== 'object' || Array.isArray(node)) return;
    const s = node as Node;
    if (typeof s.$ref === 'string') {
      const name = /^#\/components\/schemas\/([^/]+)$/.exec(s.$ref)?.[1];
      if (name && components[name] && !seen.has(name)) {
        seen.add(name);
        walk(components[name], `#/components/schemas/${name}`);
      }
      return;
    }
    const types = Array.isArray(s.type) ? s.type : [s.type];
    if (types.includes('string') && s.enum === undefined && s.const === undefined) {
      const key = query !== undefined ? `query:${query}` : pointer;
      const kind = TEXT_EXCEPTIONS[key] ?? 'line';
      if (TEXT_EXCEPTIONS[key]) used.add(key);
      s[TEXT_KEYWORD] = kind;
      if (kind !== 'line') s.description = typeof s.description === 'string' ? `${s.description.replace(/[.\s]*$/, '')}. ${KIND_NOTE[kind]}` : KIND_NOTE[kind];
    }
    for (const k of ['properties', 'patternProperties', '$defs'] as const) {
      for (const [name, child] of Object.entries((s[k] as Node | undefined) ?? {})) walk(child, `${pointer}/${k}/${name}`);
    }
    for (const k of ['items', 'additionalProperties', 'not', 'contains'] as const) walk(s[k], `${pointer}/${k}`);
    for (const k of ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const) {
      ((s[k] as unknown[] | undefined) ?? []).forEach((child, i) => walk(child, `${pointer}/${k}/${i}`));
    }
  };

  for (const [path, item] of Object.entries((document.paths ?? {}) as Record<string, Record<string, Node>>)) {
    for (const [method, op] of Object.entries(item)) {
      const base = `#/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}`;
      const body = ((op.requestBody as Node | undefined)?.content as Record<string, Node> | undefined)?.['application/json'];
      if (body) walk(body.schema, `${base}/requestBody/content/application~1json/schema`);
      for (const p of (op.parameters as Node[] | undefined) ?? []) {
        if (p.in === 'query') walk(p.schema, `${base}/parameters/${String(p.name)}`, String(p.name));
      }
    }
  }
  const missing = Object.keys(TEXT_EXCEPTIONS).filter((k) => !used.has(k));
  if (missing.length) throw new Error(`Text rules name strings the document does not have: ${missing.join(', ')}`);
}
