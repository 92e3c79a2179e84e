/**
 * A requirement about one note, with its handler (ASP.NET's resource-based authorization): met
 * by the note's author only. The `@authorize` directive hands the handler the field's parent, the
 * note; a resolver hands it the note it checks (`context.authorize(note, 'NoteAuthor')`).
 */
import { type AuthorizationHandlerContext, type AuthorizationRequirement, ResourceRequirementHandler } from 'gatehouse-auth';
import { isNote, type Note } from './note.ts';

export class NoteAuthorRequirement implements AuthorizationRequirement {
  readonly description = 'the note’s author';
}

/** Runs only when the check is given a note: without one, the requirement is never met. */
export class NoteAuthorHandler extends ResourceRequirementHandler<NoteAuthorRequirement, Note> {
  constructor() {
    super(NoteAuthorRequirement, isNote);
  }

  protected handleRequirement(context: AuthorizationHandlerContext, requirement: NoteAuthorRequirement, note: Note): void {
    if (context.user.subject === String(note.authorId)) context.succeed(requirement);
  }
}
