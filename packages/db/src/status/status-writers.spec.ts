// One writer per row kind (issue 27): a database's status (`status`, `status_message`, `running_since`) is written
// only by status/database-status.ts, a backup's `status` only by status/backup-status.ts, each through its state
// table's conditional move. This reads every other source file of packages/db (the only importer of the Prisma
// client) and fails on any write of those columns: a Prisma create/update/upsert of the model whose data names one,
// data it cannot see into, or raw SQL that inserts or updates the table's status.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const SRC = path.join(__dirname, '..');

interface Guarded {
  /** The Prisma delegate (`db.<delegate>.updateMany`). */
  delegate: string;
  table: string;
  /** Columns only the writer writes (Prisma names), and their SQL names. */
  columns: string[];
  sqlColumns: string[];
  writer: string;
}

const GUARDED: Guarded[] = [
  { delegate: 'database', table: 'databases', columns: ['status', 'statusMessage', 'runningSince'], sqlColumns: ['status', 'status_message', 'running_since'], writer: 'status/database-status.ts' },
  { delegate: 'databaseBackup', table: 'database_backups', columns: ['status'], sqlColumns: ['status'], writer: 'status/backup-status.ts' },
];
const WRITES = new Set(['create', 'createMany', 'createManyAndReturn', 'update', 'updateMany', 'updateManyAndReturn', 'upsert']);
/** The parts of a write's argument that hold written columns. */
const DATA_KEYS = new Set(['data', 'create', 'update']);

const nameOf = (n: ts.PropertyName | ts.BindingName | undefined): string | null => (n && (ts.isIdentifier(n) || ts.isStringLiteral(n)) ? n.text : null);

/** Every write of a guarded status in `text` (the file `file`, relative to packages/db/src), as sentences. */
export function statusWrites(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (n: ts.Node) => `${file}:${source.getLineAndCharacterOfPosition(n.getStart()).line + 1}`;

  // Rest elements of destructurings that took the named properties out: `const { status, ...rest } = …`.
  const restsWithout = new Map<string, Set<string>>();
  const collect = (n: ts.Node): void => {
    if (ts.isObjectBindingPattern(n)) {
      const taken = new Set(n.elements.filter((e) => !e.dotDotDotToken).map((e) => nameOf(e.propertyName ?? e.name)).filter((x): x is string => x !== null));
      for (const e of n.elements) if (e.dotDotDotToken && ts.isIdentifier(e.name)) restsWithout.set(e.name.text, taken);
    }
    ts.forEachChild(n, collect);
  };
  collect(source);

  /** The columns written by an object literal (through its spreads); a part it cannot see into is reported. */
  const checkData = (g: Guarded, e: ts.Expression, where: string): void => {
    if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e)) return checkData(g, e.expression, where);
    if (ts.isConditionalExpression(e)) {
      checkData(g, e.whenTrue, where);
      return checkData(g, e.whenFalse, where);
    }
    if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.AmpersandAmpersandToken) return checkData(g, e.right, where);
    if (ts.isArrayLiteralExpression(e)) return e.elements.forEach((x) => checkData(g, x, where));
    if (ts.isIdentifier(e) && restsWithout.has(e.text)) {
      const missing = g.columns.filter((c) => c !== 'runningSince' && !restsWithout.get(e.text)!.has(c));
      if (missing.length) found.push(`${where}: spreads ${e.text}, which may hold ${missing.join(', ')}`);
      return;
    }
    if (!ts.isObjectLiteralExpression(e)) {
      found.push(`${where}: writes ${g.delegate} data it cannot show (${e.getText().slice(0, 40)}): name the columns, or move the write into ${g.writer}`);
      return;
    }
    for (const p of e.properties) {
      if (ts.isSpreadAssignment(p)) {
        checkData(g, p.expression, where);
        continue;
      }
      const key = nameOf(p.name);
      if (key === null) found.push(`${where}: a computed column name in a ${g.delegate} write`);
      else if (g.columns.includes(key)) found.push(`${where}: writes ${g.delegate}.${key} outside its one writer ${g.writer}`);
    }
  };

  const visit = (n: ts.Node): void => {
    // db.<delegate>.<write>({ data: … })
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && ts.isPropertyAccessExpression(n.expression.expression)) {
      const method = n.expression.name.text;
      const g = GUARDED.find((x) => x.delegate === (n.expression as ts.PropertyAccessExpression).expression.getLastToken()?.getText());
      if (g && WRITES.has(method) && g.writer !== file) {
        const arg = n.arguments[0];
        if (!arg || !ts.isObjectLiteralExpression(arg)) found.push(`${at(n)}: ${g.delegate}.${method} with an argument it cannot show`);
        else {
          for (const p of arg.properties) {
            if (ts.isSpreadAssignment(p)) found.push(`${at(n)}: ${g.delegate}.${method} with a spread argument`);
            else if (ts.isPropertyAssignment(p) && DATA_KEYS.has(nameOf(p.name) ?? '')) checkData(g, p.initializer, at(n));
            else if (ts.isShorthandPropertyAssignment(p) && DATA_KEYS.has(p.name.text)) checkData(g, p.name, at(n));
          }
        }
      }
    }
    // A delegate taken aside (`const d = db.database`) would hide its writes from this check.
    if (ts.isPropertyAccessExpression(n) && GUARDED.some((g) => g.delegate === n.name.text && g.writer !== file)) {
      const parent = n.parent;
      const called = ts.isPropertyAccessExpression(parent) && parent.expression === n;
      if (!called) found.push(`${at(n)}: the ${n.name.text} delegate is used other than by a method call`);
    }
    // Raw SQL that inserts or updates a guarded table's status.
    if (ts.isNoSubstitutionTemplateLiteral(n) || ts.isTemplateExpression(n) || ts.isStringLiteral(n)) {
      const sql = n.getText();
      for (const g of GUARDED) {
        if (g.writer === file) continue;
        const writes = new RegExp(`\\b(UPDATE|INSERT\\s+INTO)\\s+${g.table}\\b`, 'i').test(sql);
        const column = g.sqlColumns.find((c) => new RegExp(`\\b${c}\\b`, 'i').test(sql));
        if (writes && column) found.push(`${at(n)}: raw SQL writes ${g.table}.${column} outside its one writer ${g.writer}`);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(source);
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'generated' ? [] : sourceFiles(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts') ? [full] : [];
  });
}

describe('one writer per row kind', () => {
  it('no file of packages/db but the writers writes a database or backup status', () => {
    const files = sourceFiles(SRC).map((f) => path.relative(SRC, f));
    expect(files).toEqual(expect.arrayContaining(['jobs/database-job.store.ts', 'jobs/backup.store.ts', 'repositories/databases.repository.ts', 'repositories/backups.repository.ts']));
    expect(files.flatMap((f) => statusWrites(f, readFileSync(path.join(SRC, f), 'utf8')))).toEqual([]);
  });

  it('the writers are the ones that write', () => {
    const writer = (f: string) => readFileSync(path.join(SRC, f), 'utf8');
    expect(writer('status/database-status.ts')).toMatch(/db\.database\.updateMany\(\{\s*where: \{ \.\.\.where, status: \{ in: sources \} \}/);
    expect(writer('status/backup-status.ts')).toMatch(/db\.databaseBackup\.updateMany\(\{ where: \{ id: backupId, status: \{ in: sources \} \}/);
  });

  // The check itself: each way of writing the column elsewhere is caught.
  it.each([
    ['a literal status', "await this.db.database.updateMany({ where: { id }, data: { status: 'running' } });", 'writes database.status outside'],
    ['a status message', 'await tx.database.update({ where: { id }, data: { statusMessage: m } });', 'writes database.statusMessage outside'],
    ['a status in a conditional spread', "await db.databaseBackup.updateMany({ where: { id }, data: { ...(ok ? { status: 'failed' } : {}) } });", 'writes databaseBackup.status outside'],
    ['a shorthand status', 'await db.databaseBackup.update({ where: { id }, data: { status } });', 'writes databaseBackup.status outside'],
    ['a create with status', "await db.database.create({ data: { id, name, status: 'provisioning' } });", 'writes database.status outside'],
    ['an upsert', "await db.databaseBackup.upsert({ where: { id }, create: { id, status: 'pending' }, update: {} });", 'writes databaseBackup.status outside'],
    ['data built elsewhere', 'await db.databaseBackup.create({ data: newBackupData(b) });', 'data it cannot show'],
    ['a spread of an unknown object', 'await db.database.update({ where: { id }, data: { ...changes } });', 'data it cannot show'],
    ['a rest that kept the status', 'const { name, ...changes } = intent; await db.database.update({ where: { id }, data: { ...changes } });', 'may hold status, statusMessage'],
    ['a delegate taken aside', 'const d = this.db.database; await d.updateMany({ data: { status: "x" } });', 'delegate is used other than by a method call'],
    ['raw SQL', 'await this.db.$executeRaw`UPDATE databases SET status = ${s} WHERE id = ${id}::uuid`;', 'raw SQL writes databases.status'],
    ['raw SQL on backups', "await pool.query('UPDATE database_backups SET status = $1 WHERE id = $2', [s, id]);", 'raw SQL writes database_backups.status'],
  ])('catches %s', (_what, code, expected) => {
    expect(statusWrites('jobs/example.store.ts', code)).toEqual([expect.stringContaining(expected)]);
  });

  it.each([
    ['a rename', 'await this.db.database.updateMany({ where: { id }, data: { name } });'],
    ['a verification', "await this.db.databaseBackup.updateMany({ where: { id }, data: { verifyStatus: 'passed' } });"],
    ['a rest without the status', 'const { status: to, statusMessage, ...changes } = intent.changes; await tx.database.update({ where: { id }, data: { ...changes } });'],
    ['a read by status', "await db.database.findMany({ where: { status: { not: 'deleting' } } });"],
  ])('lets %s through', (_what, code) => {
    expect(statusWrites('jobs/example.store.ts', code)).toEqual([]);
  });
});
