// The voice catalogue (seeded by migration 0002). Its ids are also kept in memory, loaded once at start-up,
// so that input validation (a zod refinement, which cannot await the database) can check a campaign's voice.
import type { Kysely, Selectable } from 'kysely';
import type { Database, VoicesTable } from '../db/types.js';

export interface Voice {
  voiceId: string;
  name: string;
  language: string;
  gender: string;
  accent: string;
  provider: string;
  previewUrl: string;
}

const toVoice = (row: Selectable<VoicesTable>): Voice => ({
  voiceId: row.voice_id,
  name: row.name,
  language: row.language,
  gender: row.gender,
  accent: row.accent,
  provider: row.provider,
  previewUrl: row.preview_url,
});

const catalogueIds = new Set<string>();

export async function loadVoiceCatalogue(db: Kysely<Database>): Promise<void> {
  const rows = await db.selectFrom('voices').select('voice_id').execute();
  for (const row of rows) catalogueIds.add(row.voice_id);
}

export function isCatalogueVoice(voiceId: string): boolean {
  return catalogueIds.has(voiceId);
}

/** `language` matches a whole tag (`en-US`) or a primary language (`en` → en-US, en-GB, …). */
export async function listVoices(db: Kysely<Database>, language?: string | null): Promise<Voice[]> {
  let query = db.selectFrom('voices').selectAll().orderBy('sort_order');
  if (language) {
    const lower = language.toLowerCase();
    query = query.where((eb) =>
      eb.or([eb(eb.fn('lower', ['language']), '=', lower), eb(eb.fn('lower', ['language']), 'like', `${lower}-%`)]),
    );
  }
  return (await query.execute()).map(toVoice);
}

export async function getVoicesByIds(db: Kysely<Database>, voiceIds: readonly string[]): Promise<Voice[]> {
  if (voiceIds.length === 0) return [];
  return (await db.selectFrom('voices').selectAll().where('voice_id', 'in', voiceIds).execute()).map(toVoice);
}
