// Hot queries built once (docs/decisions.md §14): Kysely builds and compiles a query of a given shape once per
// database, and later calls run the same SQL with new parameter values. Building a query costs about as much as
// reading a page of 50 rows, and every GraphQL or REST request runs at least one.
import { type Compilable, type CompiledQuery, createQueryId, type Kysely } from 'kysely';
import type { Database } from './types.js';

/** A parameter's value: bound when it is a string or a number, part of the query's shape otherwise. */
type Parameter = string | number | boolean | null | undefined;

/** Where a named parameter's value goes in the compiled query. */
class Slot {
  constructor(readonly name: string) {}
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
 * A query written with Kysely whose SQL is built once per shape: `build` gets the parameters with each bound value
 * replaced by a placeholder, so it must pass them to Kysely as they are (compute a LIKE pattern, say, before, as a
 * parameter of its own), never test or transform them; booleans and absent values may choose what SQL it writes.
 * Lists (`in (…)`) are not parameters here: their length changes the SQL.
 */
export function reusableQuery<P extends { [K in keyof P]: Parameter }, R>(
  build: (db: Kysely<Database>, params: P) => Compilable<R>,
): (db: Kysely<Database>, params: P) => Promise<R[]> {
  const compiledByDatabase = new WeakMap<Kysely<Database>, Map<string, CompiledQuery<R>>>();
  return async (db, params) => {
    let shapes = compiledByDatabase.get(db);
    if (!shapes) compiledByDatabase.set(db, (shapes = new Map()));
    const shape = shapeOf(params);
    let compiled = shapes.get(shape);
    if (!compiled) {
      compiled = build(db, slotted(params)).compile();
      if (shapes.size < MAX_SHAPES) shapes.set(shape, compiled);
    }
    const parameters = compiled.parameters.map((value) =>
      value instanceof Slot ? (params as Record<string, Parameter>)[value.name] : value,
    );
    const result = await db.executeQuery<R>({ ...compiled, parameters, queryId: createQueryId() });
    return result.rows;
  };
}
