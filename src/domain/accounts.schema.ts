// Input rules for accounts (docs/decisions.md §4), shared by GraphQL arguments and the REST door.
import { z } from 'zod';

export const emailField = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email('value is not a valid email address'))
  .transform((email) => email.toLowerCase())
  .meta({ format: 'email', description: 'An e-mail address; surrounding whitespace is trimmed, case is ignored' });

export const passwordField = z.string().min(8).max(128);

export const signUpSchema = z.object({ email: emailField, password: passwordField });

/** Login only checks shapes: a wrong e-mail or password is a 401, not a 422. */
export const loginSchema = z.object({ email: z.string().max(254), password: z.string().max(128) });
