// A node's `id` is answered without a promise (src/graphql/schema/sync-global-ids.ts), and is the very global id the relay
// plugin would give: what `node(id:)` reads back (test/graphql/global-ids.test.ts goes through the doors).
import { encodeGlobalID } from '@pothos/plugin-relay';
import { type GraphQLObjectType, type GraphQLResolveInfo, isObjectType } from 'graphql';
import { describe, expect, test } from 'vitest';
import { internalSchema, schema } from '../../src/graphql/schema/schema.js';

const info = {} as GraphQLResolveInfo;
/** The node types whose id is a plain field (src/graphql/schema/plain-fields.ts). */
const PLAIN_IDS = ['Campaign', 'Meeting', 'Webhook', 'WebhookDelivery'];
const context = { viewer: { id: 'acc_1' } };

describe.each([
  ['public', schema],
  ['internal', internalSchema],
])('the %s graph', (_name, graph) => {
  const idOf = (typename: string, parent: object) => {
    const type = graph.getType(typename) as GraphQLObjectType;
    return type.getFields().id?.resolve?.(parent, {}, context, info);
  };

  test('a call log’s and a voice’s ids are strings at once, encoded as relay encodes them', () => {
    const callLog = idOf('CallLog', { callId: 'CA1' });
    expect(callLog).toBe(encodeGlobalID('CallLog', 'acc_1:CA1'));
    expect(idOf('Voice', { voiceId: 'en-US-aria' })).toBe(encodeGlobalID('Voice', 'en-US-aria'));
  });

  test('every node type answers its id synchronously', () => {
    const nodes = Object.values(graph.getTypeMap()).filter(
      (type): type is GraphQLObjectType =>
        isObjectType(type) && type.getInterfaces().some((face) => face.name === 'Node'),
    );
    expect(nodes.length).toBeGreaterThan(5);
    for (const node of nodes) {
      const resolve = node.getFields().id?.resolve;
      // A plain id has no resolver: it is computed once per object, where the object is shaped
      // (test/graphql/plain-fields.test.ts checks the encoding through the doors).
      if (PLAIN_IDS.includes(node.name)) {
        expect(resolve, node.name).toBeUndefined();
        continue;
      }
      expect(resolve, node.name).toBeTypeOf('function');
      // Not an async function: its result is a value (or the relay plugin's promise only when a key is a promise).
      expect(resolve?.constructor.name, node.name).toBe('Function');
    }
  });
});
