// A compile-time check that a table's declared fields and its column list agree, whose error names the column: a
// campaign field declared without its column in src/db/types.ts fails to compile with
//   Type '"the columns agree"' is not assignable to type '"column voice_speed: declared by a field, missing from the
//   table's column list (src/db/types.ts)"'.

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** The columns both sides list whose types differ. */
type Retyped<Fields, Table> = {
  [K in keyof Fields & keyof Table]: Same<Fields[K], Table[K]> extends true ? never : K;
}[keyof Fields & keyof Table];

/**
 * `'the columns agree'` when `Fields` (the columns the field declarations name, with their stored types) and `Table`
 * (the table's column list) are the same; otherwise a sentence naming the first kind of disagreement and its columns.
 */
export type ColumnsAgreement<Fields, Table> = [Exclude<keyof Fields, keyof Table>] extends [never]
  ? [Exclude<keyof Table, keyof Fields>] extends [never]
    ? [Retyped<Fields, Table>] extends [never]
      ? 'the columns agree'
      : `column ${Retyped<Fields, Table> & string}: another type in the table's column list (src/db/types.ts)`
    : `column ${Exclude<keyof Table, keyof Fields> & string}: in the table's column list (src/db/types.ts), declared by no field`
  : `column ${Exclude<keyof Fields, keyof Table> & string}: declared by a field, missing from the table's column list (src/db/types.ts)`;
