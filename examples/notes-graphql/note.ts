/**
 * The application's own resource: a note on the team's board, written by a Gatehouse user. Its
 * private remarks are for its author only (the `NoteAuthor` policy on the field).
 */
export interface Note {
  readonly id: number;
  /** The author's Gatehouse user id (the `sub` of their tokens). */
  readonly authorId: number;
  readonly text: string;
  readonly privateRemarks: string | null;
  readonly createdAt: string;
}

/** What the resource handler reads of a note: the parent of a field is a plain object, so test its shape. */
export function isNote(resource: unknown): resource is Note {
  const candidate = resource as Partial<Note> | null;
  return typeof candidate?.authorId === 'number' && typeof candidate.id === 'number';
}

export interface NewNote {
  readonly authorId: number;
  readonly text: string;
  readonly privateRemarks: string | null;
}

/**
 * The board's notes, in this process's memory: they are gone at a restart, and several instances
 * would each have their own. An application keeping them would put them in a table of its own
 * beside Gatehouse's (as examples/invoices does); nothing else here would change.
 */
export class NoteBoard {
  private readonly notes = new Map<number, Note>();
  private lastId = 0;

  add(note: NewNote, now: Date): Note {
    this.lastId += 1;
    const added: Note = { id: this.lastId, ...note, createdAt: now.toISOString() };
    this.notes.set(added.id, added);
    return added;
  }

  find(id: number): Note | undefined {
    return this.notes.get(id);
  }

  list(): Note[] {
    return [...this.notes.values()];
  }

  remove(id: number): void {
    this.notes.delete(id);
  }

  /** How many people have written on the board. */
  authors(): number {
    return new Set(this.list().map((note) => note.authorId)).size;
  }
}
