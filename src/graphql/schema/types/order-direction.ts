// The direction of a sorted list, shared by every `orderBy` input (campaigns, call logs).
import { builder } from '../builder.js';

export const OrderDirectionEnum = builder.enumType('OrderDirection', {
  description: 'Which end of a sorted list comes first.',
  values: {
    ASC: { value: 'ASC', description: 'Smallest, earliest or first in alphabetical order first.' },
    DESC: { value: 'DESC', description: 'Largest, latest or last in alphabetical order first.' },
  } as const,
});
