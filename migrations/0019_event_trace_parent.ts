// Traces that connect (docs/observability.md "Traces"): an event keeps the W3C `traceparent` of the span that wrote it
// (the request's GraphQL execution, or its HTTP span), so that each attempt to deliver it, however much later and on
// whichever instance, is a span linked to that request. Null when traces were off, or the write was not traced.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('events').addColumn('trace_parent', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('events').dropColumn('trace_parent').execute();
}
