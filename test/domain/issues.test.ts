// Zod issues become pydantic v2-worded issues, whichever door reports them.
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { boolField, intField, jsonObjectField, languageTagField, timeZoneField } from '../../src/validation/fields.js';
import { issuesFromZod } from '../../src/validation/issues.js';

const schema = z.object({
  count: intField(1, 10),
  flag: boolField,
  data: jsonObjectField,
  name: z.string().min(1).max(3),
});

function issuesOf(input: unknown) {
  const result = schema.safeParse(input);
  if (result.success) throw new Error('expected a failure');
  return issuesFromZod(result.error.issues, input).map(({ path, type, message }) => ({ path, type, message }));
}

describe('pydantic wording', () => {
  test('missing fields, parsing failures and bounds', () => {
    expect(issuesOf({ count: 'abc', flag: 'maybe', data: [], name: '' })).toEqual([
      {
        path: ['count'],
        type: 'int_parsing',
        message: 'Input should be a valid integer, unable to parse string as an integer',
      },
      { path: ['flag'], type: 'bool_parsing', message: 'Input should be a valid boolean, unable to interpret input' },
      { path: ['data'], type: 'dict_type', message: 'Input should be a valid dictionary' },
      { path: ['name'], type: 'string_too_short', message: 'String should have at least 1 character' },
    ]);
    expect(issuesOf({ count: 11, flag: true, data: {}, name: 'abcd' })).toEqual([
      { path: ['count'], type: 'less_than_equal', message: 'Input should be less than or equal to 10' },
      { path: ['name'], type: 'string_too_long', message: 'String should have at most 3 characters' },
    ]);
    expect(issuesOf({ count: 1.5 })[0]).toEqual({
      path: ['count'],
      type: 'int_from_float',
      message: 'Input should be a valid integer, got a number with a fractional part',
    });
    expect(issuesOf({}).map((i) => i.type)).toEqual(['missing', 'missing', 'missing', 'missing']);
    expect(issuesOf([])[0]?.type).toBe('model_attributes_type');
  });

  test('lenient coercion as pydantic lax mode', () => {
    expect(schema.parse({ count: ' 7 ', flag: 'false', data: {}, name: 'ab' })).toEqual({
      count: 7,
      flag: false,
      data: {},
      name: 'ab',
    });
    expect(boolField.parse('yes')).toBe(true);
    expect(boolField.parse(0)).toBe(false);
  });

  test('languages and time zones', () => {
    for (const tag of ['en', 'en-US', 'pt-BR', 'zh-Hant-TW'])
      expect(languageTagField.safeParse(tag).success, tag).toBe(true);
    for (const tag of ['english', 'e', 'en_US', '', 'en--US'])
      expect(languageTagField.safeParse(tag).success, tag).toBe(false);
    for (const zone of ['UTC', 'Europe/Paris', 'America/Argentina/Buenos_Aires'])
      expect(timeZoneField.safeParse(zone).success, zone).toBe(true);
    for (const zone of ['Mars/Base', '+01:00', '', 'Europe/Pariss'])
      expect(timeZoneField.safeParse(zone).success, zone).toBe(false);
  });
});
