// A campaign field declared without its column (or the reverse) fails to compile with an error naming the column
// (src/domain/columns-agree.ts), not TypeScript's bare "Type 'true' is not assignable to type 'false'".
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { expect, it } from 'vitest';

const AGREEMENT = join(import.meta.dirname, '../../src/domain/columns-agree.ts');

/** The compiler's errors for `const check: ColumnsAgreement<Fields, Table> = 'the columns agree'`. */
function errorsOf(fields: string, table: string): string[] {
  const folder = mkdtempSync(join(tmpdir(), 'gateway-columns-'));
  try {
    const file = join(folder, 'check.ts');
    writeFileSync(
      file,
      `import type { ColumnsAgreement } from ${JSON.stringify(AGREEMENT.replace(/\.ts$/, '.js'))};\n` +
        `const check: ColumnsAgreement<${fields}, ${table}> = 'the columns agree';\nvoid check;\n`,
    );
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      allowImportingTsExtensions: false,
      types: [],
    });
    return ts
      .getPreEmitDiagnostics(program)
      .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

it('compiles when the declarations and the column list agree', () => {
  expect(
    errorsOf('{ title: string; max_call_timeout: number }', '{ title: string; max_call_timeout: number }'),
  ).toEqual([]);
});

it('names a column a field declares that the column list lacks, one the list has that no field declares, a type', () => {
  expect(errorsOf('{ title: string; voice_speed: number }', '{ title: string }')).toEqual([
    `Type '"the columns agree"' is not assignable to type '"column voice_speed: declared by a field, missing from the table's column list (src/db/types.ts)"'.`,
  ]);
  expect(errorsOf('{ title: string }', '{ title: string; voice_speed: number }').join('\n')).toContain(
    `column voice_speed: in the table's column list (src/db/types.ts), declared by no field`,
  );
  expect(
    errorsOf('{ title: string; voice_speed: number }', '{ title: string; voice_speed: string }').join('\n'),
  ).toContain(`column voice_speed: another type in the table's column list (src/db/types.ts)`);
});
