// The keys that tie live queries to writes (docs/graphql-internals.md, "Live queries"), derived on both sides and written per
// table and per schema rule here, never per query or per resolver:
//
// - what a live query read: every field resolved on a node gives that node's global id; a field that lists nodes of
//   a type T (a list, or a connection of them) gives the owner-scoped list key `<owner's global id>/T` (the owner is
//   the node the field is on, or the signed-in account for root fields and fields of other objects); a field that
//   returns one node, and found none, gives the same list key, so that the node's creation reaches it; `node`/`nodes`
//   give the account's list key of each type asked for; a field that sums up a list (its `extensions.sumsUp` names
//   the node type: callStats sums up the account's CallLog list) gives that list's key; any other root field gives
//   the account's global id;
// - what a write touched (src/db/written-rows.ts): the same keys, from the table's row values by TABLES below.
//
// A write that does not name its rows (no id in its WHERE) gives `any:<account's global id>:T`, or `any:T` without an
// account, and every read also gives those two for each type it read: such a write reaches every live query that read
// any T (of that account). A write that is not Kysely's own (raw SQL) reaches every live query (ALL).
import { decodeGlobalID, encodeGlobalID } from '@pothos/plugin-relay';
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import {
  defaultFieldResolver,
  getNamedType,
  type GraphQLFieldResolver,
  type GraphQLNamedType,
  GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  isListType,
  isNonNullType,
  isObjectType,
} from 'graphql';
import type { WrittenRows } from '../../db/written-rows.js';
import { scopedKey } from '../schema/global-ids.js';

/** Every live query gives this key: invalidating it re-runs them all (Redis back after an outage; raw SQL). */
export const ALL = 'live:*';

const accountKey = (accountId: string) => encodeGlobalID('Account', accountId);
const listKey = (owner: string, type: string) => `${owner}/${type}`;
const anyOfAccount = (accountGid: string, type: string) => `any:${accountGid}:${type}`;
const anyOf = (type: string) => `any:${type}`;

// ---------------------------------------------------------------------------------------------------------------
// The write side.

type Row = Record<string, unknown>;

/** A node of a row: its type and its node key (before encoding), or undefined when the row does not tell it. */
interface NodeOf {
  type: string;
  key: (row: Row) => string | undefined;
}

interface TableKeys {
  /** Nodes the row is, or is part of (call logs are part of their campaign's metrics). */
  nodes: NodeOf[];
  /** Lists the row is a member of: `of` nodes listed under `owner`. */
  lists: Array<{ owner: NodeOf; of: string }>;
  /**
   * The tables whose rows a delete of this row removes too (foreign keys ON DELETE CASCADE), each with the columns its
   * rows share with this row (same names). `test/graphql/live-keys.test.ts` checks these against the database.
   */
  cascades?: Record<string, string[]>;
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;

/** A node keyed by one column (ids unique across accounts). */
const plain = (type: string, column: string): NodeOf => ({ type, key: (row) => text(row[column]) });

/** A node keyed per account (src/graphql/schema/global-ids.ts): `<account_id>:<column>`. */
const scoped = (type: string, column: string): NodeOf => ({
  type,
  key: (row) => {
    const account = text(row.account_id);
    const own = text(row[column]);
    return account && own ? scopedKey(account, own) : undefined;
  },
});

const ACCOUNT = plain('Account', 'account_id');

/** Each table that queries read, with the nodes and lists its rows belong to. Tables not here are not read by any. */
export const TABLES: Record<string, TableKeys> = {
  accounts: { nodes: [plain('Account', 'id')], lists: [] },
  access_tokens: { nodes: [scoped('AccessToken', 'token_id')], lists: [{ owner: ACCOUNT, of: 'AccessToken' }] },
  campaigns: {
    nodes: [scoped('Campaign', 'camp_id')],
    lists: [{ owner: ACCOUNT, of: 'Campaign' }],
    cascades: {
      text_pipelines: ['account_id', 'camp_id'],
      call_logs: ['account_id', 'camp_id'],
      call_stats_hours: ['account_id', 'camp_id'],
      campaign_call_totals: ['account_id', 'camp_id'],
      meetings: ['account_id', 'camp_id'],
      social_messages: ['account_id', 'camp_id'],
      webhook_campaigns: ['account_id', 'camp_id'],
    },
  },
  text_pipelines: {
    nodes: [scoped('TextPipeline', 'camp_id'), scoped('Campaign', 'camp_id')],
    lists: [{ owner: ACCOUNT, of: 'TextPipeline' }],
  },
  integrations: { nodes: [ACCOUNT], lists: [] },
  call_logs: {
    nodes: [scoped('CallLog', 'call_id'), scoped('Campaign', 'camp_id')],
    lists: [
      { owner: ACCOUNT, of: 'CallLog' },
      { owner: scoped('Campaign', 'camp_id'), of: 'CallLog' },
    ],
  },
  // The call statistics the database keeps from the call logs (migrations/0020_call_stats.ts): only its triggers write
  // them, inside the call log's own write (which gives these keys already); a write of them is a change of those.
  call_stats_hours: {
    nodes: [scoped('Campaign', 'camp_id')],
    lists: [
      { owner: ACCOUNT, of: 'CallLog' },
      { owner: scoped('Campaign', 'camp_id'), of: 'CallLog' },
    ],
  },
  account_call_stats_hours: { nodes: [], lists: [{ owner: ACCOUNT, of: 'CallLog' }] },
  campaign_call_totals: { nodes: [scoped('Campaign', 'camp_id')], lists: [] },
  meetings: {
    nodes: [plain('Meeting', 'meeting_id')],
    lists: [
      { owner: ACCOUNT, of: 'Meeting' },
      { owner: scoped('Campaign', 'camp_id'), of: 'Meeting' },
    ],
  },
  social_messages: {
    nodes: [scoped('SocialMessage', 'message_id')],
    lists: [
      { owner: ACCOUNT, of: 'SocialMessage' },
      { owner: scoped('Campaign', 'camp_id'), of: 'SocialMessage' },
    ],
  },
  webhooks: {
    nodes: [plain('Webhook', 'webhook_id')],
    lists: [{ owner: ACCOUNT, of: 'Webhook' }],
    cascades: { webhook_campaigns: ['account_id', 'webhook_id'], webhook_deliveries: ['account_id', 'webhook_id'] },
  },
  // The outbox: no query reads it, but its deliveries go with it.
  events: { nodes: [], lists: [], cascades: { webhook_deliveries: ['account_id', 'event_id'] } },
  webhook_campaigns: {
    nodes: [plain('Webhook', 'webhook_id'), scoped('Campaign', 'camp_id')],
    lists: [{ owner: scoped('Campaign', 'camp_id'), of: 'Webhook' }],
  },
  webhook_deliveries: {
    nodes: [plain('WebhookDelivery', 'delivery_id')],
    lists: [
      { owner: ACCOUNT, of: 'WebhookDelivery' },
      { owner: plain('Webhook', 'webhook_id'), of: 'WebhookDelivery' },
    ],
  },
};

/**
 * Tables no query reads (persisted documents, OAuth state, idempotency keys, the static voice catalogue, fan-outs still
 * to expand). Deleting an account removes every row of it (cascades not listed above): its live queries end at their
 * next credential check.
 */
export const UNREAD_TABLES = [
  'persisted_queries',
  'oauth_artifacts',
  'idempotency_keys',
  'voices',
  'fan_outs',
] as const;

/** The fallback key of a node or list the row does not name: any of the type in the row's account, or anywhere. */
const unnamed = (row: Row, type: string) => {
  const account = text(row.account_id);
  return account ? anyOfAccount(accountKey(account), type) : anyOf(type);
};

/** The keys a committed write touched. */
export function keysOfWrites(writes: readonly WrittenRows[]): Set<string> {
  const keys = new Set<string>();
  for (const { table, kind, rows } of writes) {
    if (table === null) {
      keys.add(ALL);
      continue;
    }
    addKeysOfRows(keys, table, rows);
    const cascades = kind === 'delete' ? TABLES[table]?.cascades : undefined;
    for (const [child, columns] of Object.entries(cascades ?? {})) {
      const shared = rows.map((row) => Object.fromEntries(columns.filter((c) => c in row).map((c) => [c, row[c]])));
      addKeysOfRows(keys, child, shared);
    }
  }
  return keys;
}

function addKeysOfRows(keys: Set<string>, table: string, rows: ReadonlyArray<Record<string, unknown>>): void {
  const spec = TABLES[table];
  if (!spec) return;
  for (const row of rows) {
    for (const node of spec.nodes) {
      const key = node.key(row);
      keys.add(key ? encodeGlobalID(node.type, key) : unnamed(row, node.type));
    }
    for (const { owner, of } of spec.lists) {
      const key = owner.key(row);
      keys.add(key ? listKey(encodeGlobalID(owner.type, key), of) : unnamed(row, of));
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The read side.

/** Where a live execution's resolvers put the keys of what they read (set on each run's context). */
export interface LiveKeyCollector {
  /** The signed-in account's id. */
  accountId: string;
  add(key: string): void;
  /** Nodes whose keys were given already in this run. */
  seen: WeakSet<object>;
}

export interface LiveContext {
  liveKeys?: LiveKeyCollector;
}

const isNodeType = (type: GraphQLNamedType): type is GraphQLObjectType =>
  isObjectType(type) && type.getInterfaces().some((face) => face.name === 'Node');

const unwrap = (type: GraphQLOutputType): { named: GraphQLNamedType; list: boolean } => {
  let current = type;
  let list = false;
  while (isNonNullType(current) || isListType(current)) {
    if (isListType(current)) list = true;
    current = current.ofType;
  }
  return { named: current, list };
};

/** The node type a field lists (as a list, or as a connection with edges { node }), or null. */
function listedNodeType(type: GraphQLOutputType): GraphQLObjectType | null {
  const { named, list } = unwrap(type);
  if (list) return isNodeType(named) ? named : null;
  if (!isObjectType(named)) return null;
  const edges = named.getFields().edges;
  if (!edges) return null;
  const edge = getNamedType(edges.type);
  const node = isObjectType(edge) ? edge.getFields().node : undefined;
  const nodeType = node ? getNamedType(node.type) : undefined;
  return nodeType && isNodeType(nodeType) ? nodeType : null;
}

/** The type a global id names, or null when it is not one of a node type of ours. */
function typeOfGlobalId(id: string): string | null {
  try {
    const { typename } = decodeGlobalID(id);
    return /^[A-Z][A-Za-z]{0,63}$/.test(typename) ? typename : null;
  } catch {
    return null;
  }
}

const then = (value: unknown, use: (value: unknown) => void): void => {
  if (value instanceof Promise) value.then(use, () => undefined);
  else use(value);
};

/**
 * The schema live queries run on: the same types and resolvers, each field also giving the keys of what it read to
 * the run's collector. (Other requests keep the schema without this: it costs them nothing.)
 */
export function withLiveKeys(schema: GraphQLSchema): GraphQLSchema {
  const queryName = schema.getQueryType()?.name;
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (config, fieldName, typeName) => {
      const parent = schema.getType(typeName);
      if (!parent || !isObjectType(parent)) return config;
      const parentIsNode = isNodeType(parent);
      const idResolve = parentIsNode ? parent.getFields().id?.resolve : undefined;
      const listed = listedNodeType(config.type);
      const { named, list } = unwrap(config.type);
      const single = !list && isNodeType(named) ? named : null;
      const atRoot = typeName === queryName;
      const nodeLookup = atRoot && (fieldName === 'node' || fieldName === 'nodes');
      const sumsUp = typeof config.extensions?.sumsUp === 'string' ? config.extensions.sumsUp : null;
      const resolve: GraphQLFieldResolver<unknown, unknown> = config.resolve ?? defaultFieldResolver;
      const wrapped: GraphQLFieldResolver<unknown, LiveContext> = (source, args, context, info) => {
        const collector = context?.liveKeys;
        if (!collector) return resolve(source, args, context, info);
        const account = accountKey(collector.accountId);
        let owner = account;
        if (parentIsNode && typeof source === 'object' && source !== null) {
          // A plain `id` (src/graphql/schema/plain-fields.ts) is the shaped object's own property.
          const id = idResolve ? idResolve(source, {}, context, info) : (source as { id?: unknown }).id;
          if (typeof id === 'string') {
            owner = id;
            if (!collector.seen.has(source)) {
              collector.seen.add(source);
              collector.add(id);
              collector.add(anyOfAccount(account, typeName));
              collector.add(anyOf(typeName));
            }
          }
        }
        const listKeys = (type: string) => {
          collector.add(listKey(owner, type));
          collector.add(anyOfAccount(account, type));
          collector.add(anyOf(type));
        };
        if (listed) listKeys(listed.name);
        if (sumsUp) listKeys(sumsUp);
        if (nodeLookup) {
          // Not the ids as given (anyone may name any key): the account's list of each type asked for, so that a node
          // created later reaches the query; a node found gives its own key as it resolves.
          const ids: unknown = (args as { id?: unknown; ids?: unknown }).id ?? (args as { ids?: unknown }).ids;
          for (const id of Array.isArray(ids) ? ids : [ids]) {
            const type = typeof id === 'string' ? typeOfGlobalId(id) : null;
            if (type) listKeys(type);
          }
        } else if (atRoot && !listed && !single && !sumsUp) {
          collector.add(account);
        }
        const result = resolve(source, args, context, info);
        if (single)
          then(result, (value) => (value === null || value === undefined ? listKeys(single.name) : undefined));
        return result;
      };
      return { ...config, resolve: wrapped };
    },
  });
}
