// The voice catalogue: reference data, frozen here as it was first shipped. New voices come in new migrations.
import type { Kysely } from 'kysely';

const VOICES: Array<[id: string, name: string, language: string, gender: string, accent: string]> = [
  ['en-US-aria', 'Aria', 'en-US', 'female', 'American'],
  ['en-US-guy', 'Guy', 'en-US', 'male', 'American'],
  ['en-US-jenny', 'Jenny', 'en-US', 'female', 'American'],
  ['en-GB-sonia', 'Sonia', 'en-GB', 'female', 'British'],
  ['en-GB-ryan', 'Ryan', 'en-GB', 'male', 'British'],
  ['es-ES-elvira', 'Elvira', 'es-ES', 'female', 'Castilian'],
  ['es-MX-jorge', 'Jorge', 'es-MX', 'male', 'Mexican'],
  ['fr-FR-denise', 'Denise', 'fr-FR', 'female', 'Parisian'],
  ['fr-FR-henri', 'Henri', 'fr-FR', 'male', 'Parisian'],
  ['de-DE-katja', 'Katja', 'de-DE', 'female', 'Standard German'],
  ['de-DE-conrad', 'Conrad', 'de-DE', 'male', 'Standard German'],
  ['it-IT-elsa', 'Elsa', 'it-IT', 'female', 'Standard Italian'],
  ['it-IT-diego', 'Diego', 'it-IT', 'male', 'Standard Italian'],
  ['pt-BR-francisca', 'Francisca', 'pt-BR', 'female', 'Brazilian'],
];

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('voices')
    .addColumn('voice_id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('gender', 'text', (c) => c.notNull())
    .addColumn('accent', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('preview_url', 'text', (c) => c.notNull())
    .addColumn('sort_order', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('voices_language').on('voices').columns(['language', 'sort_order']).execute();
  await db
    .insertInto('voices')
    .values(
      VOICES.map(([voice_id, name, language, gender, accent], index) => ({
        voice_id,
        name,
        language,
        gender,
        accent,
        provider: 'neural',
        preview_url: `https://voices.invalid/previews/${voice_id}.mp3`,
        sort_order: index,
      })),
    )
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('voices').execute();
}
