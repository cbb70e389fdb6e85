// The campaign graph as an Apollo Federation 2 subgraph (issue 45, docs/supergraph.md): Campaign,
// CallLog, Meeting, Webhook, Voice and Account are entities keyed by their global `id`, Campaign also by its `campId`
// and CallLog by the provider's `callId` (both unique within the caller's account). A gateway resolves
// representations through `_entities`, each by the same dataloader `node(id:)` uses, so they are batched per type
// and only the caller's own objects come back: another account's, or any object for a caller without a valid token,
// is null (the voice catalogue is public) — with NOT_FOUND, the same whether it exists or not, when the gateway asked
// for a non-null field of it (notFoundWhereAsked).
import { decodeGlobalID } from '@pothos/plugin-relay';
import {
  buildASTSchema,
  type DefinitionNode,
  findBreakingChanges,
  getDirectiveValues,
  GraphQLIncludeDirective,
  type GraphQLResolveInfo,
  GraphQLSkipDirective,
  isNonNullType,
  isObjectType,
  isUnionType,
  Kind,
  parse,
  print,
  type SelectionSetNode,
  visit,
} from 'graphql';
import { badInput, notFound } from '../../core/errors.js';
import { builder, MAX_NODE_IDS } from './builder.js';
import type { Context } from './context.js';
import { AccountRef } from './types/account.js';
import { CallLogRef } from './types/call-log.js';
import { CampaignRef } from './types/campaign.js';
import { MeetingRef } from './types/meeting.js';
import { VoiceRef } from './types/voice.js';
import { WebhookRef } from './types/webhook.js';

/** Representations one `_entities` call may carry, as `nodes(ids:)` takes ids (docs/limits.md). */
export const MAX_REPRESENTATIONS = MAX_NODE_IDS;

/** The key a representation's global id names when it is of `typename`, else null (a malformed id is null too). */
function keyOfGlobalId(id: unknown, typename: string): string | null {
  if (typeof id !== 'string') return null;
  try {
    const decoded = decodeGlobalID(id);
    return decoded.typename === typename ? decoded.id : null;
  } catch {
    return null;
  }
}

interface LoadableRef<T> {
  getDataloader(context: Context): { load(key: string): Promise<T | null> };
}

/** Loads the object a key names through the type's node dataloader; null without a signed-in caller. */
function loadOwn<T>(ref: LoadableRef<T>, key: string | null, context: Context, anyone = false): Promise<T | null> {
  if (key === null || (!anyone && !context.viewer)) return Promise.resolve(null);
  return ref.getDataloader(context).load(key);
}

const byId = builder.selection<{ id: string }>('id');

export function declareEntities(): void {
  builder.asEntity(CampaignRef, {
    key: [byId, builder.selection<{ campId: string }>('campId')],
    resolveReference: (ref, context) =>
      loadOwn(CampaignRef, 'campId' in ref ? String(ref.campId) : keyOfGlobalId(ref.id, 'Campaign'), context),
  });
  builder.asEntity(CallLogRef, {
    key: [byId, builder.selection<{ callId: string }>('callId')],
    resolveReference: (ref, context) =>
      loadOwn(CallLogRef, 'callId' in ref ? String(ref.callId) : keyOfGlobalId(ref.id, 'CallLog'), context),
  });
  builder.asEntity(MeetingRef, {
    key: byId,
    resolveReference: (ref, context) => loadOwn(MeetingRef, keyOfGlobalId(ref.id, 'Meeting'), context),
  });
  builder.asEntity(WebhookRef, {
    key: byId,
    resolveReference: (ref, context) => loadOwn(WebhookRef, keyOfGlobalId(ref.id, 'Webhook'), context),
  });
  builder.asEntity(AccountRef, {
    key: byId,
    resolveReference: (ref, context) => loadOwn(AccountRef, keyOfGlobalId(ref.id, 'Account'), context),
  });
  builder.asEntity(VoiceRef, {
    key: byId,
    resolveReference: (ref, context) => loadOwn(VoiceRef, keyOfGlobalId(ref.id, 'Voice'), context, true),
  });
}

/** `_entities`'s cost (src/graphql/schema/field-costs.ts): what one entity selects, times the representations. */
export const ENTITIES_COST = (args: { representations?: unknown }) => ({
  field: 1,
  multiplier: Array.isArray(args.representations) ? args.representations.length : 1,
});

/**
 * Before any representation is resolved: at most MAX_REPRESENTATIONS of them, each naming an entity. Their cost
 * (ENTITIES_COST) was counted with the document's before it ran (src/graphql/server/document-cost.ts).
 */
export function checkRepresentations(representations: unknown, info: GraphQLResolveInfo): void {
  if (!Array.isArray(representations)) return;
  // Each an object naming an entity type of this subgraph: anything else is the client's mistake, said as such (the
  // federation library would throw, and the client would get a masked internal error).
  const entity = info.schema.getType('_Entity');
  const entities = new Set(isUnionType(entity) ? entity.getTypes().map((type) => type.name) : []);
  const misnamed = representations.flatMap((representation, index) => {
    const typename = (representation as { __typename?: unknown } | null)?.__typename;
    if (typeof representation === 'object' && typeof typename === 'string' && entities.has(typename)) return [];
    return [
      {
        path: ['representations', index],
        type: 'value_error',
        message: `a representation is an object whose __typename names an entity: ${[...entities].join(', ')}`,
      },
    ];
  });
  if (misnamed.length > 0) throw badInput(misnamed.slice(0, 20));
  if (representations.length > MAX_REPRESENTATIONS) {
    throw badInput([
      {
        path: ['representations'],
        type: 'too_long',
        message: `at most ${MAX_REPRESENTATIONS} representations at once (got ${representations.length})`,
      },
    ]);
  }
}

/**
 * The non-null fields (`__typename` aside) the gateway's `_entities` selection asks of an object of `typename`: where
 * the representation does not carry one (a key field it does), a null in the object's place is a field error the
 * gateway must report.
 */
function nonNullFieldsAsked(info: GraphQLResolveInfo, typename: string): string[] {
  const type = info.schema.getType(typename);
  if (!isObjectType(type)) return [];
  const fields = type.getFields();
  const interfaces = new Set(type.getInterfaces().map((implemented) => implemented.name));
  const applies = (condition: string | undefined) =>
    condition === undefined || condition === typename || condition === '_Entity' || interfaces.has(condition);
  const included = (node: Parameters<typeof getDirectiveValues>[1]) =>
    getDirectiveValues(GraphQLSkipDirective, node, info.variableValues)?.if !== true &&
    getDirectiveValues(GraphQLIncludeDirective, node, info.variableValues)?.if !== false;
  const asked = new Set<string>();
  const seen = new Set<string>();
  const collect = (selectionSet: SelectionSetNode | undefined): void => {
    for (const selection of selectionSet?.selections ?? []) {
      if (!included(selection)) continue;
      if (selection.kind === Kind.FIELD) {
        const field = fields[selection.name.value];
        if (field && isNonNullType(field.type)) asked.add(field.name);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (applies(selection.typeCondition?.name.value)) collect(selection.selectionSet);
      } else {
        const fragment = info.fragments[selection.name.value];
        if (!fragment || seen.has(fragment.name.value)) continue;
        seen.add(fragment.name.value);
        if (applies(fragment.typeCondition.name.value)) collect(fragment.selectionSet);
      }
    }
  };
  for (const node of info.fieldNodes) collect(node.selectionSet);
  return [...asked];
}

/**
 * The representations `_entities` resolved, with a null the gateway cannot keep said as NOT_FOUND. A representation
 * the caller may not see (another account's object, one that exists nowhere, a malformed id, any but a voice without a
 * token) is null. When the gateway asked for a non-null field of it that the representation does not carry, GraphQL
 * makes that null a field error the gateway must report, and each says its own: Hive Gateway "Unexpected error." with
 * `INTERNAL_SERVER_ERROR` (the error is the gateway's, not a subgraph's, so it masks it), which error-rate alerts
 * count. So the subgraph says it first: NOT_FOUND naming the type only, the same whether the object is another
 * account's or nobody's, which a gateway passes on as it is. Where the gateway asked only nullable fields (or fields
 * it has), the null stays without an error: the gateway answers the object with those fields null.
 */
export function notFoundWhereAsked(resolved: unknown, representations: unknown, info: GraphQLResolveInfo): unknown {
  if (!Array.isArray(resolved) || !Array.isArray(representations)) return resolved;
  const asked = new Map<string, string[]>();
  return resolved.map((entity, index) => {
    const representation = representations[index] as Record<string, unknown>;
    const typename = String(representation.__typename);
    let fields = asked.get(typename);
    if (!fields) {
      fields = nonNullFieldsAsked(info, typename);
      asked.set(typename, fields);
    }
    if (!fields.some((field) => !(field in representation))) return entity;
    return Promise.resolve(entity).then((value: unknown) => {
      if (value === null || value === undefined) throw notFound(`${typename} not found`);
      return value;
    });
  });
}

/**
 * What a new subgraph SDL breaks for the gateways and subgraphs composed with the old one (a type or field removed,
 * a type changed, an argument added as required…), as graphql-js judges it: `npm run schema` refuses to write such a
 * change unless asked to (`subgraph:print --allow-breaking`).
 */
export function breakingSubgraphChanges(before: string, after: string): string[] {
  const build = (sdl: string) => buildASTSchema(parse(sdl), { assumeValidSDL: true });
  return findBreakingChanges(build(before), build(after)).map((change) => change.description);
}

type Named = { name: { value: string } };
const byName = <T extends Named>(items: readonly T[] | undefined): T[] | undefined =>
  items && [...items].sort((a, b) => a.name.value.localeCompare(b.name.value));

/**
 * The subgraph SDL with its types, fields, arguments and enum values in name order: `printSubgraphSchema` prints the
 * types that carry directives from the AST Pothos built, in the order their modules were imported, which differs
 * between processes (the CLI, a test that imports this file first).
 */
export function sortedSdl(sdl: string): string {
  const document = parse(sdl);
  const sorted = visit(document, {
    ObjectTypeDefinition: (node) => ({ ...node, fields: byName(node.fields) }),
    InterfaceTypeDefinition: (node) => ({ ...node, fields: byName(node.fields) }),
    InputObjectTypeDefinition: (node) => ({ ...node, fields: byName(node.fields) }),
    EnumTypeDefinition: (node) => ({ ...node, values: byName(node.values) }),
    FieldDefinition: (node) => ({ ...node, arguments: byName(node.arguments) }),
  });
  const named = (definition: DefinitionNode) => ('name' in definition && definition.name ? definition.name.value : '');
  const definitions = [...sorted.definitions].sort((a, b) => {
    const rank = (definition: DefinitionNode) => (definition.kind === Kind.SCHEMA_EXTENSION ? 0 : 1);
    return rank(a) - rank(b) || named(a).localeCompare(named(b));
  });
  return `${print({ ...sorted, definitions })}\n`;
}
