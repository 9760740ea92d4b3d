// Writes docs/operator-api.json, the committed copy of the operator API's document: `npx tsx packages/contracts/src/operator/write-document.ts`.
// operator.spec.ts fails while the committed copy differs from operatorApiDocument().
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { operatorApiDocument } from './document';

export const OPERATOR_DOCUMENT_FILE = path.resolve(__dirname, '../../../../docs/operator-api.json');

if (require.main === module) writeFileSync(OPERATOR_DOCUMENT_FILE, `${JSON.stringify(operatorApiDocument(), null, 2)}\n`);
