import {
  IdentifierNode,
  OperationNodeTransformer,
  type CheckConstraintNode,
  type CreateIndexNode,
  type DropConstraintNode,
  type DropIndexNode,
  type ForeignKeyConstraintNode,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type PrimaryKeyConstraintNode,
  type QueryId,
  type QueryResult,
  type RenameConstraintNode,
  type RootOperationNode,
  type SchemableIdentifierNode,
  type UniqueConstraintNode,
  type UnknownRow,
} from 'kysely';

/**
 * Puts a prefix before the name of each of Gatehouse's tables, and before the names of the
 * indexes and constraints its migrations create, in every query and schema statement, as Kysely's
 * `WithSchemaPlugin` puts a schema before them. The stores and migrations keep writing `users`;
 * the database sees `gh_users`.
 *
 * Only the names in `tables` are renamed: an alias (`refresh_tokens as t`) or a table of the
 * application that a query might name stays as written. Index and constraint names are renamed
 * whatever they are, because only Gatehouse's migrations name any, and both engines keep index
 * names in one namespace per schema, where an application's `sessions_user_id_index` could be.
 *
 * Raw SQL is covered when it names a table with `sql.table(…)`; a table name inside the text of
 * a `sql` template is not.
 */
export class TablePrefixPlugin implements KyselyPlugin {
  readonly #transformer: TablePrefixTransformer;

  constructor(prefix: string, tables: Iterable<string>) {
    this.#transformer = new TablePrefixTransformer(prefix, new Set(tables));
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.#transformer.transformNode(args.node, args.queryId);
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

class TablePrefixTransformer extends OperationNodeTransformer {
  readonly #prefix: string;
  readonly #tables: ReadonlySet<string>;

  constructor(prefix: string, tables: ReadonlySet<string>) {
    super();
    this.#prefix = prefix;
    this.#tables = tables;
  }

  /** Table names, wherever they appear: from, into, joins, references, `sql.table`, DDL. */
  protected override transformSchemableIdentifier(node: SchemableIdentifierNode, queryId?: QueryId): SchemableIdentifierNode {
    const transformed = super.transformSchemableIdentifier(node, queryId);
    if (!this.#tables.has(transformed.identifier.name)) return transformed;
    return { ...transformed, identifier: this.#prefixed(transformed.identifier) };
  }

  protected override transformCreateIndex(node: CreateIndexNode, queryId?: QueryId): CreateIndexNode {
    const transformed = super.transformCreateIndex(node, queryId);
    return { ...transformed, name: this.#prefixed(transformed.name) };
  }

  protected override transformDropIndex(node: DropIndexNode, queryId?: QueryId): DropIndexNode {
    const transformed = super.transformDropIndex(node, queryId);
    return { ...transformed, name: { ...transformed.name, identifier: this.#prefixed(transformed.name.identifier) } };
  }

  protected override transformUniqueConstraint(node: UniqueConstraintNode, queryId?: QueryId): UniqueConstraintNode {
    return this.#withPrefixedName(super.transformUniqueConstraint(node, queryId));
  }

  protected override transformPrimaryKeyConstraint(node: PrimaryKeyConstraintNode, queryId?: QueryId): PrimaryKeyConstraintNode {
    return this.#withPrefixedName(super.transformPrimaryKeyConstraint(node, queryId));
  }

  protected override transformCheckConstraint(node: CheckConstraintNode, queryId?: QueryId): CheckConstraintNode {
    return this.#withPrefixedName(super.transformCheckConstraint(node, queryId));
  }

  protected override transformForeignKeyConstraint(node: ForeignKeyConstraintNode, queryId?: QueryId): ForeignKeyConstraintNode {
    return this.#withPrefixedName(super.transformForeignKeyConstraint(node, queryId));
  }

  protected override transformDropConstraint(node: DropConstraintNode, queryId?: QueryId): DropConstraintNode {
    const transformed = super.transformDropConstraint(node, queryId);
    return { ...transformed, constraintName: this.#prefixed(transformed.constraintName) };
  }

  protected override transformRenameConstraint(node: RenameConstraintNode, queryId?: QueryId): RenameConstraintNode {
    const transformed = super.transformRenameConstraint(node, queryId);
    return { ...transformed, oldName: this.#prefixed(transformed.oldName), newName: this.#prefixed(transformed.newName) };
  }

  #withPrefixedName<Constraint extends { readonly name?: IdentifierNode }>(constraint: Constraint): Constraint {
    return constraint.name === undefined ? constraint : { ...constraint, name: this.#prefixed(constraint.name) };
  }

  #prefixed(identifier: IdentifierNode): IdentifierNode {
    return IdentifierNode.create(this.#prefix + identifier.name);
  }
}
