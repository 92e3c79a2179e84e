/**
 * Compiled, never run: a misspelt policy name is a compile error wherever TypeScript reads one.
 * Each `@ts-expect-error` below fails the build if its line compiles (if the names were not
 * declared, every string would be accepted and these lines would break the build instead).
 * A name inside the SDL is not among them: TypeScript does not read it, and the plugin refuses
 * to start on an unknown one.
 */
import type { AuthorizationPolicy, PolicyName } from 'gatehouse-auth';
import type { Note } from './note.ts';
import type { NotesContext } from './schema.ts';

export async function resolverNamingAMisspeltPolicy(context: NotesContext, note: Note): Promise<void> {
  // @ts-expect-error 'NoteAuther' is not a declared policy name ('NoteAuthor' is).
  await context.authorize(note, 'NoteAuther');
  await context.authorize(note, 'NoteAuthor');
  // @ts-expect-error 'members' is not a declared policy name: names are case-sensitive.
  await context.isAuthorized(note, 'members');
  await context.isAuthorized(note, 'Members');
}

export function policiesMissingOne(policy: AuthorizationPolicy): Record<PolicyName, AuthorizationPolicy> {
  // @ts-expect-error every declared name needs its policy: 'NoteAuthor' is missing.
  return { Members: policy };
}
