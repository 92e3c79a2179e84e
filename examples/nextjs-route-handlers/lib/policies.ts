/**
 * The application's named policies, and their names declared to Gatehouse: a misspelt name is a
 * compile error in every route handler that names it.
 */
import { AssertionRequirement, type AuthorizationPolicy, AuthorizationPolicyBuilder, type PolicyName } from 'gatehouse-auth';
import type { Document } from './documents.ts';

declare module 'gatehouse-auth' {
  interface GatehousePolicies {
    /** People who edit every document: the list of all of them. */
    Editors: true;
    /** A resource check on one document: its author, or an editor. */
    ReadDocument: true;
  }
}

/** Typed by the declared names: leaving one out, or adding an undeclared one, does not compile. */
export function documentPolicies(): Record<PolicyName, AuthorizationPolicy> {
  const policy = () => new AuthorizationPolicyBuilder().requireAuthenticatedUser();
  const authorOrEditor = new AssertionRequirement(
    (context) => (context.resource as Document).authorId === context.user.subject || context.user.isInRole('Editor'),
    'the document’s author or an editor',
  );
  return {
    Editors: policy().requireRole('Editor').build(),
    ReadDocument: policy().addRequirement(authorOrEditor).build(),
  };
}
