import { buildSchema, type GraphQLFieldResolver, GraphQLScalarType, type GraphQLSchema, isObjectType, isScalarType } from 'graphql';

/** A field's resolver, with the context the application's resolvers get. */
export type FieldResolver<Context = unknown> = GraphQLFieldResolver<any, Context, any>;

/** A `Subscription` field: where its events come from, and (optionally) how each is resolved. */
export interface SubscriptionResolver<Context = unknown> {
  readonly subscribe: FieldResolver<Context>;
  readonly resolve?: FieldResolver<Context>;
}

/**
 * Resolvers by type and field, for type definitions in SDL: a function per field, `{ subscribe,
 * resolve }` for a `Subscription` field, and a `GraphQLScalarType` for a custom scalar. A field
 * without a resolver reads the parent's property of its name.
 */
export type GraphQLResolvers<Context = unknown> = Readonly<
  Record<string, GraphQLScalarType | Readonly<Record<string, FieldResolver<Context> | SubscriptionResolver<Context>>>>
>;

/**
 * The schema of the type definitions, with the resolvers attached. A resolver for a type or field
 * the definitions do not have is a start-up error, not a field that silently resolves to null.
 */
export function buildExecutableSchema<Context>(typeDefs: string | readonly string[], resolvers: GraphQLResolvers<Context> = {}): GraphQLSchema {
  const schema = buildSchema(typeof typeDefs === 'string' ? typeDefs : typeDefs.join('\n'));
  for (const [typeName, own] of Object.entries(resolvers)) {
    const type = schema.getType(typeName);
    if (type === undefined || type === null) throw new Error(`The resolvers name a type "${typeName}" that the schema does not have.`);
    if (own instanceof GraphQLScalarType) {
      if (!isScalarType(type)) throw new Error(`"${typeName}" is given a scalar's resolvers but is not a scalar.`);
      Object.assign(type, { serialize: own.serialize, parseValue: own.parseValue, parseLiteral: own.parseLiteral });
      continue;
    }
    if (!isObjectType(type)) throw new Error(`"${typeName}" is not an object type; only object types and scalars take resolvers.`);
    const fields = type.getFields();
    for (const [fieldName, resolver] of Object.entries(own)) {
      const field = fields[fieldName];
      if (field === undefined) throw new Error(`The resolvers name a field "${typeName}.${fieldName}" that the schema does not have.`);
      if (typeof resolver === 'function') {
        field.resolve = resolver as GraphQLFieldResolver<unknown, unknown>;
      } else {
        field.subscribe = resolver.subscribe as GraphQLFieldResolver<unknown, unknown>;
        if (resolver.resolve) field.resolve = resolver.resolve as GraphQLFieldResolver<unknown, unknown>;
      }
    }
  }
  return schema;
}
