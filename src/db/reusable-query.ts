// Hot queries built once (docs/decisions.md §14): Kysely builds and compiles a query of a given shape once per
// database, and later calls run the same SQL with new parameter values. Building a query costs about as much as
// reading a page of 50 rows, and every GraphQL or REST request runs at least one.
import {
  type Compilable,
  type CompiledQuery,
  createQueryId,
  type Kysely,
  type OperationNodeSource,
  type SelectQueryBuilder,
  SelectQueryNode,
} from 'kysely';
import { type CredentialCheck, pendingCredentialCheck } from '../core/request-context.js';
import {
  CREDENTIAL_COLUMN,
  credentialStands,
  credentialStood,
  credentialValue,
  type CredentialValues,
} from './credential-check.js';
import type { Database } from './types.js';

/** A parameter's value: bound when it is a string or a number, part of the query's shape otherwise. */
type Parameter = string | number | boolean | null | undefined;

/** Where a named parameter's value goes in the compiled query. */
class Slot {
  constructor(readonly name: string) {}
}

/** Where a value of the request's credential check goes (src/db/credential-check.ts). */
class CheckSlot {
  constructor(readonly name: keyof CredentialValues) {}
}

const CHECK_SLOTS: CredentialValues = {
  accountId: new CheckSlot('accountId'),
  tokenVersion: new CheckSlot('tokenVersion'),
};
const TOKEN_CHECK_SLOTS: CredentialValues = {
  ...CHECK_SLOTS,
  tokenId: new CheckSlot('tokenId'),
  tokenHash: new CheckSlot('tokenHash'),
};

/** A compiled shape, and whether its rows carry the credential check. */
interface Compiled<R> {
  query: CompiledQuery<R>;
  carriesCheck: boolean;
}

/** Shapes kept per query and database; a query with more shapes than this is built for each call past the bound. */
const MAX_SHAPES = 64;

/**
 * The shape of a call: a parameter that is absent (null or undefined), a boolean, or a falsy value ('' or 0) may
 * change the SQL a builder writes (`if (params.status)`); any other value is only bound.
 */
function shapeOf(params: object): string {
  let shape = '';
  for (const [name, value] of Object.entries(params as Record<string, Parameter>)) {
    const kind =
      value === null || value === undefined
        ? '-'
        : typeof value === 'boolean'
          ? String(value)
          : value
            ? '+'
            : `0${typeof value}`;
    shape += `${name}:${kind};`;
  }
  return shape;
}

/** The parameters as a builder sees them when compiling: each bound value replaced by its slot. */
function slotted<P>(params: P): P {
  const slots: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(params as Record<string, Parameter>)) {
    slots[name] = value !== null && value !== undefined && typeof value !== 'boolean' && value ? new Slot(name) : value;
  }
  return slots as P;
}

/**
 * The query with one more column, whether the request's credential still stands (docs/decisions.md §14), when it is a
 * select; null otherwise.
 */
function carryingCheck<R>(built: Compilable<R>, check: CredentialCheck): Compilable<R> | null {
  const node = (built as Partial<OperationNodeSource>).toOperationNode?.();
  // Not on a union and the like: the column would go to its first branch only.
  if (!node || !SelectQueryNode.is(node) || node.setOperations?.length) return null;
  const slots = check.accessToken ? TOKEN_CHECK_SLOTS : CHECK_SLOTS;
  return (built as unknown as SelectQueryBuilder<Database, keyof Database, R>).select((eb) =>
    credentialStands(eb, slots).as(CREDENTIAL_COLUMN),
  ) as unknown as Compilable<R>;
}

/**
 * A query written with Kysely whose SQL is built once per shape: `build` gets the parameters with each bound value
 * replaced by a placeholder, so it must pass them to Kysely as they are (compute a LIKE pattern, say, before, as a
 * parameter of its own), never test or transform them; booleans and absent values may choose what SQL it writes.
 * Lists (`in (…)`) are not parameters here: their length changes the SQL.
 *
 * While the request's credential is provisional (src/authentication.ts), a select carries its check as one more
 * column, `"$credential"`, and the first row's answer settles it. The rows keep that column (deleting a property
 * from each row would cost more than the check): a caller maps rows field by field, never spreads or returns them.
 */
export function reusableQuery<P extends { [K in keyof P]: Parameter }, R>(
  build: (db: Kysely<Database>, params: P) => Compilable<R>,
): (db: Kysely<Database>, params: P) => Promise<R[]> {
  const compiledByDatabase = new WeakMap<Kysely<Database>, Map<string, Compiled<R>>>();
  return async (db, params) => {
    let shapes = compiledByDatabase.get(db);
    if (!shapes) compiledByDatabase.set(db, (shapes = new Map()));
    const check = pendingCredentialCheck();
    const shape = check ? `${shapeOf(params)}|${check.accessToken ? 'token' : 'account'}` : shapeOf(params);
    let compiled = shapes.get(shape);
    if (!compiled) {
      const built = build(db, slotted(params));
      const carrying = check ? carryingCheck(built, check) : null;
      compiled = { query: (carrying ?? built).compile(), carriesCheck: carrying !== null };
      if (shapes.size < MAX_SHAPES) shapes.set(shape, compiled);
    }
    const { query, carriesCheck } = compiled;
    const parameters = query.parameters.map((value) =>
      value instanceof Slot
        ? (params as Record<string, Parameter>)[value.name]
        : value instanceof CheckSlot && check
          ? credentialValue(check, value.name)
          : value,
    );
    const result = await db.executeQuery<R>({ ...query, parameters, queryId: createQueryId() });
    if (carriesCheck && check && check.outcome === undefined && result.rows.length > 0) {
      check.outcome = credentialStood((result.rows[0] as Record<string, unknown>)[CREDENTIAL_COLUMN]);
    }
    return result.rows;
  };
}
