/**
 * The application's named policies, and their names declared to Gatehouse: a misspelt name is a
 * compile error wherever TypeScript sees it (the record of policies, `context.authorize` in a
 * resolver, a route). Names inside the SDL (`@authorize(policy: "…")`) are strings TypeScript does
 * not read: a misspelt one there stops the start instead.
 */
import {
  type AuthorizationHandler,
  type AuthorizationPolicy,
  AuthorizationPolicyBuilder,
  type PolicyName,
  UserSubjectRequirement,
} from 'gatehouse-auth';
import { NoteAuthorHandler, NoteAuthorRequirement } from './note-author.ts';

declare module 'gatehouse-auth' {
  interface GatehousePolicies {
    /** A signed-in person (not an integration's API key): reading and writing the board. */
    Members: true;
    /** The author of the note at hand: its private remarks, its removal. */
    NoteAuthor: true;
  }
}

/** The role that sees the board's figures (`TeamStats`). */
export const LEAD_ROLE = 'Lead';

/** Typed by the declared names: leaving one out, or adding an undeclared one, does not compile. */
export function notesPolicies(): Record<PolicyName, AuthorizationPolicy> {
  const policy = () => new AuthorizationPolicyBuilder().requireAuthenticatedUser();
  return {
    Members: policy().addRequirement(new UserSubjectRequirement()).build(),
    NoteAuthor: policy().addRequirement(new NoteAuthorRequirement()).build(),
  };
}

export function notesHandlers(): AuthorizationHandler[] {
  return [new NoteAuthorHandler()];
}
