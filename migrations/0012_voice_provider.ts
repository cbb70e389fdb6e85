// The telephony integration's voiceProvider is a closed set (TELEPHONY only; GraphQL's VoiceProvider enum). The demo
// seed of before stored "default", which no door accepts; such rows show TELEPHONY, what the legacy service shows.
// Plain fields are JSON text (0005_integrations), so each telephony row is read, fixed and written back.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  const rows = (await db
    .selectFrom('integrations')
    .select(['account_id', 'fields'])
    .where('kind', '=', 'telephony')
    .execute()) as Array<{ account_id: string; fields: string }>;
  for (const row of rows) {
    const fields = JSON.parse(row.fields) as Record<string, unknown>;
    if (fields.voiceProvider === undefined || fields.voiceProvider === null || fields.voiceProvider === 'TELEPHONY')
      continue;
    await db
      .updateTable('integrations')
      .set({ fields: JSON.stringify({ ...fields, voiceProvider: 'TELEPHONY' }) })
      .where('account_id', '=', row.account_id)
      .where('kind', '=', 'telephony')
      .execute();
  }
}

export async function down(): Promise<void> {
  // The values it replaced were never valid; nothing to restore.
}
