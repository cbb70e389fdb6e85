// Plain fields (issue 43; docs/graphql-internals.md "Plain fields"): a field whose value is a fixed function of its object — a
// column, a rename, a date's string, an enum's spelling, a global id — is answered without a resolver call per field.
//
// graphql-jit answers a field without a resolver by reading the parent's property of the field's name, inline in the
// compiled query; a field with one costs a call through its resolver machinery (two closures, a resolve info, a path)
// for every field of every object: 1 250 of them on a page of 50 campaigns. So the objects of a type declared with
// `plainFields: true` are shaped once, as they leave the field that produced them: one object literal holding, under
// their GraphQL names, the value of every plain field — computed by that field's own resolver, which stays the single
// definition — and the object it was made from. In the schema built here, those fields then have no resolver.
//
// - Plain, in a shaped type: a field declared `plain: true` (its resolver is synchronous, cannot fail, has no
//   arguments and reads only the parent and the context), an exposed field (`t.exposeString`: its property copied), and
//   a field without a resolver, unless declared `plain: false` (an edge's `cursor`: exposed, but an encoding most
//   documents never select). Every plain field is computed when the object is shaped, whether it is asked for or
//   not: so a node's `id` is not plain — it needs a signed-in viewer (src/graphql/schema/global-ids.ts), and a call-status
//   callback's call log has none — and stays a synchronous resolver (src/graphql/schema/sync-global-ids.ts).
// - Every other field of a shaped type keeps its resolver, and gets the object the shaped one was made from.
// - Shaped where made: every field whose type is a shaped object type (or a list of them) shapes what its resolver
//   returns; a field whose type is an interface or a union shapes each object branded as a shaped type (Pothos brands
//   what `node`/`nodes` load, which is how it resolves their type).
//
// - Not shaped for a compiled plan's request (src/graphql/server/compiled-plan.ts): the plan computes each plain field
//   it selects of the object as made, through `plainReaderOf` (the same resolver), and no other.
//
// `toSchema({ plainFields: false })` builds the same schema with every resolver in place: the reference that shadow
// mode (GRAPHQL_PREPARED_LANE=shadow, the whole test suite) executes each lane answer against (src/http/lane-shadow.ts),
// so that a shaped answer differing by one byte from the resolvers' fails the test that sent it.
import SchemaBuilder, {
  BasePlugin,
  type FieldNullability,
  type InputFieldMap,
  type TypeParam,
  isThenable,
  type PothosOutputFieldConfig,
  type PothosOutputFieldType,
  type SchemaTypes,
  typeBrandKey,
} from '@pothos/core';
import { defaultFieldResolver, type GraphQLField, type GraphQLFieldResolver } from 'graphql';

type Resolver = GraphQLFieldResolver<unknown, object, object>;
type Shaper = (source: object, context: object) => object;

/** Where a shaped object keeps the object it was made from (for the type's other resolvers). */
const SOURCE = Symbol('plain fields: source');
const NO_ARGUMENTS = Object.freeze({});

/**
 * The requests a compiled plan runs (src/graphql/server/compiled-plan.ts), by their context: nothing is shaped for them.
 * The plan reads each selected plain field through `plainReaderOf` instead, and only those.
 */
const unshaped = new WeakSet<object>();

/** While a plan runs a request: what its resolvers produce is left as made. */
export function leaveUnshaped(context: unknown, unshapedNow: boolean): void {
  if (context === null || typeof context !== 'object') return;
  if (unshapedNow) unshaped.add(context);
  else unshaped.delete(context);
}

/** How a plain field's value is made of its (unshaped) object: by its resolver, or as the object's property. */
export type PlainReader = (source: object, context: object) => unknown;

/**
 * The plain fields' readers, by the field's Pothos config (which every schema built from it keeps in the field's
 * extensions, through the sub-graph copies): each build with plain fields registers its own.
 */
const readers = new WeakMap<object, PlainReader>();

/** The reader of a plain field of a shaped type, or undefined (not shaped, or not plain). */
export function plainReaderOf(field: GraphQLField<unknown, unknown>): PlainReader | undefined {
  const config = (field.extensions as { pothosConfig?: unknown } | undefined)?.pothosConfig;
  return config !== null && typeof config === 'object' ? readers.get(config) : undefined;
}

/** The object a shaped object was made from, or the object itself. */
const sourceOf = (parent: unknown): unknown =>
  parent !== null && typeof parent === 'object' && SOURCE in parent
    ? (parent as Record<symbol, unknown>)[SOURCE]
    : parent;

/** A plain field's value, or a clear error when its resolver broke the promise of being plain. */
function plainValue(typeName: string, fieldName: string, value: unknown): unknown {
  if (isThenable(value)) {
    throw new Error(`${typeName}.${fieldName} is declared plain but its resolver returned a promise`);
  }
  return value;
}

interface ShapedType {
  /** Plain fields by name: their resolver, or null for a copied property. */
  plain: Map<string, Resolver | null>;
  shaper?: Shaper;
}

export class PlainFieldsPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  /** By type name: its shaped type, or null for a type that is not shaped (asked again for every branded node). */
  private readonly shaped = new Map<string, ShapedType | null>();

  private get enabled(): boolean {
    return (this.options as { plainFields?: boolean }).plainFields !== false;
  }

  /** The shaped type of this name, when the type is declared `plainFields: true` (and the plugin is on). */
  private shapedType(typeName: string): ShapedType | undefined {
    if (!this.enabled) return undefined;
    let entry = this.shaped.get(typeName);
    if (entry === undefined) {
      const config = this.buildCache.getTypeConfig(typeName);
      const declared = config.kind === 'Object' && (config.pothosOptions as { plainFields?: boolean }).plainFields;
      entry = declared ? { plain: new Map() } : null;
      this.shaped.set(typeName, entry);
    }
    return entry ?? undefined;
  }

  /**
   * One function per type making the shaped object: an object literal of a fixed shape (as src/db/database.ts maps
   * rows), so that graphql-jit's compiled reads of it stay monomorphic. Names come from the schema and are quoted.
   */
  private shaperOf(typeName: string, type: ShapedType): Shaper {
    if (type.shaper) return type.shaper;
    const resolvers: Resolver[] = [];
    const entries = [...type.plain].map(([name, resolver]) => {
      const key = JSON.stringify(name);
      if (!resolver) return `${key}: source[${key}]`;
      resolvers.push(resolver);
      return `${key}: value(${JSON.stringify(typeName)}, ${key}, resolvers[${resolvers.length - 1}](source, none, context, undefined))`;
    });
    const make = new Function(
      'resolvers',
      'value',
      'none',
      'SOURCE',
      'BRAND',
      'brand',
      `return (source, context) => ({ ${entries.join(', ')}, [SOURCE]: source, [BRAND]: brand });`,
    ) as (...args: unknown[]) => Shaper;
    type.shaper = make(resolvers, plainValue, NO_ARGUMENTS, SOURCE, typeBrandKey, typeName);
    return type.shaper;
  }

  /** The function shaping one produced value of `fieldType` (a list: each item, to any depth), or null. */
  private producerOf(fieldType: PothosOutputFieldType<Types>): ((value: unknown, context: object) => unknown) | null {
    if (fieldType.kind === 'List') {
      const item = this.producerOf(fieldType.type as PothosOutputFieldType<Types>);
      if (!item) return null;
      const list = (value: unknown, context: object): unknown => {
        if (isThenable(value)) return Promise.resolve(value).then((settled) => list(settled, context));
        return Array.isArray(value) ? value.map((each) => item(each, context)) : value;
      };
      return list;
    }
    const config = this.buildCache.getTypeConfig(fieldType.ref);
    const one = (shape: (object: object, context: object) => object) => {
      const produce = (value: unknown, context: object): unknown => {
        if (unshaped.has(context)) return value;
        if (isThenable(value)) return Promise.resolve(value).then((settled) => produce(settled, context));
        return value !== null && typeof value === 'object' && !(value instanceof Error) && !(SOURCE in value)
          ? shape(value, context)
          : value;
      };
      return produce;
    };
    if (config.kind === 'Object') {
      const type = this.shapedType(config.name);
      if (!type) return null;
      const { name } = config;
      return one((object, context) => this.shaperOf(name, type)(object, context));
    }
    if ((config.kind === 'Interface' || config.kind === 'Union') && this.enabled) {
      return one((object, context) => {
        const brand = (object as Record<symbol, unknown>)[typeBrandKey];
        if (typeof brand !== 'string') return object;
        const type = this.shapedType(brand);
        return type ? this.shaperOf(brand, type)(object, context) : object;
      });
    }
    return null;
  }

  override wrapResolve(resolver: Resolver, fieldConfig: PothosOutputFieldConfig<Types>): Resolver {
    let wrapped = resolver;
    const parent = this.shapedType(fieldConfig.parentType);
    if (parent) {
      const declared = (fieldConfig.pothosOptions as { plain?: boolean }).plain;
      const exposed = fieldConfig.extensions?.pothosExposedField !== undefined;
      // `plain: false` keeps an exposed field's resolver: its value is computed only when a document selects it.
      if (declared !== false && (declared === true || exposed || resolver === defaultFieldResolver)) {
        if (Object.keys(fieldConfig.args).length > 0) {
          throw new Error(`${fieldConfig.parentType}.${fieldConfig.name}: a plain field takes no arguments`);
        }
        // A plain field whose value is itself of a shaped type (an edge's `node`) is shaped in the same pass.
        // (graphql-js's default resolver reads the field's name from the resolve info, which a shaper has not: the
        // property is read by name instead.)
        const nested = this.producerOf(fieldConfig.type);
        const { name } = fieldConfig;
        const read: Resolver =
          resolver === defaultFieldResolver ? (source) => (source as Record<string, unknown>)[name] : resolver;
        const plain: Resolver | null = nested
          ? (source, args, context, info) => nested(read(source, args, context, info), context)
          : resolver === defaultFieldResolver
            ? null
            : resolver;
        parent.plain.set(name, plain);
        const typeName = fieldConfig.parentType;
        readers.set(
          fieldConfig,
          plain
            ? (source, context) =>
                plainValue(typeName, name, plain(sourceOf(source), NO_ARGUMENTS, context, undefined as never))
            : (source) => (sourceOf(source) as Record<string, unknown>)[name],
        );
        // No resolver in the built schema: graphql-jit (and graphql-js) read the shaped object's property.
        return defaultFieldResolver;
      }
      wrapped = (source, args, context, info) => resolver(sourceOf(source), args, context, info);
    } else if (this.enabled && (fieldConfig.pothosOptions as { plain?: boolean }).plain === true) {
      throw new Error(`${fieldConfig.parentType}.${fieldConfig.name} is plain in a type without plainFields: true`);
    }
    const produce = this.producerOf(fieldConfig.type);
    if (!produce) return wrapped;
    const inner = wrapped;
    return (source, args, context, info) => produce(inner(source, args, context, info), context);
  }
}

// Pothos declares its plugins and their options in this global namespace (as its own plugins do); there is no module
// form. Declaration merging repeats Pothos's type parameters, used or not.
/* eslint-disable @typescript-eslint/no-unused-vars */
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      plainFields: PlainFieldsPlugin<Types>;
    }
    export interface ObjectTypeOptions<Types extends SchemaTypes = SchemaTypes, Shape = unknown> {
      /** Objects of this type are shaped where they are made, and its plain fields read without resolvers. */
      plainFields?: boolean;
    }
    export interface FieldOptions<
      Types extends SchemaTypes,
      ParentShape,
      Type extends TypeParam<Types>,
      Nullable extends FieldNullability<Type>,
      Args extends InputFieldMap,
      ResolveShape,
      ResolveReturnShape,
    > {
      /**
       * In a `plainFields` type: the value is a fixed, synchronous function of the parent (and the context), with no
       * arguments — computed once per object by this resolver, and read without a resolver call. `false`: an exposed
       * field keeps its resolver (a value worth computing only when selected).
       */
      plain?: boolean;
    }
    export interface BuildSchemaOptions<Types extends SchemaTypes> {
      /** false: every resolver in place, no shaping (the reference schema of shadow mode). */
      plainFields?: boolean;
    }
  }
}

/* eslint-enable @typescript-eslint/no-unused-vars */

export const PLAIN_FIELDS = 'plainFields' as const;
SchemaBuilder.registerPlugin(PLAIN_FIELDS, PlainFieldsPlugin);
