import { CompiledQuery, type Compilable, type Kysely, type QueryResult } from 'kysely';

/** Where a compiled statement's parameter comes from: a value given at each run, or a constant of the query. */
type Slot = { readonly name: string } | { readonly constant: unknown };

const MARKER = /^\u0000gatehouse-parameter:(.+)\u0000$/;

/**
 * A query that Kysely builds and compiles once and that then runs with new values each time.
 *
 * Building and compiling a query is JavaScript work that ends in the same SQL on every run; on
 * the sign-in path it cost about as much as executing the statements in SQLite (decision 0026).
 * Here `build` runs once, on the first execution, with a placeholder (a string that no query
 * holds as a constant of its own) for every parameter; compiling it tells where each placeholder landed among the
 * statement's bound values, and every run after that binds its own values there and hands the
 * SQL to the same driver, in or out of a transaction. The statement stays parameterized.
 *
 * `build` may use a parameter only as a value (`where(column, '=', p.id)`, `values({ … })`,
 * `set({ … })`): never test it, compute with it, or pass a list, since during the build it is a
 * placeholder. One instance belongs to one store (the SQL is the engine's dialect).
 */
export class ReusableQuery<DB, Params extends Record<string, unknown>, Row> {
  private compiled: { readonly sql: string; readonly slots: readonly Slot[] } | undefined;

  constructor(private readonly build: (db: Kysely<DB>, parameters: Params) => Compilable<Row>) {}

  execute(db: Kysely<DB>, values: Params): Promise<QueryResult<Row>> {
    const { sql, slots } = (this.compiled ??= this.compile(db));
    const parameters = slots.map((slot) => ('name' in slot ? values[slot.name] : slot.constant));
    return db.executeQuery(CompiledQuery.raw(sql, parameters) as CompiledQuery<Row>);
  }

  async rows(db: Kysely<DB>, values: Params): Promise<Row[]> {
    return (await this.execute(db, values)).rows;
  }

  async first(db: Kysely<DB>, values: Params): Promise<Row | undefined> {
    return (await this.execute(db, values)).rows[0];
  }

  private compile(db: Kysely<DB>): { sql: string; slots: Slot[] } {
    const placeholders = new Proxy({} as Params, {
      get: (_target, name) => (typeof name === 'string' ? `\u0000gatehouse-parameter:${name}\u0000` : undefined),
    });
    const { sql, parameters } = this.build(db, placeholders).compile();
    const slots = parameters.map((value): Slot => {
      const name = typeof value === 'string' ? MARKER.exec(value)?.[1] : undefined;
      return name === undefined ? { constant: value } : { name };
    });
    return { sql, slots };
  }
}
