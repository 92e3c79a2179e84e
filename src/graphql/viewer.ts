import {
  type DocumentNode,
  type GraphQLSchema,
  getNamedType,
  isObjectType,
  type ConstDirectiveNode,
  TypeInfo,
  visit,
  visitWithTypeInfo,
} from 'graphql';

/** Fields whose value depends on who asks, besides those under `@authorize`. */
const VIEWER_FIELDS = new Set(['Query.me']);

const hasAuthorize = (directives: readonly ConstDirectiveNode[] | undefined) => directives?.some((d) => d.name.value === 'authorize') ?? false;

/**
 * Whether a document's result is the same for every caller allowed to run it: it selects no field
 * under a policy (`@authorize` on the field or its type) and none that reads the caller. The
 * result of such a subscription for one event can then be computed once and sent to every
 * subscriber (each one's `subscribe` is still authorized on its own).
 */
export function isViewerIndependent(schema: GraphQLSchema, document: DocumentNode): boolean {
  const typeInfo = new TypeInfo(schema);
  let independent = true;
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field() {
        const parent = typeInfo.getParentType();
        const field = typeInfo.getFieldDef();
        if (!parent || !field) return;
        const type = getNamedType(field.type);
        if (
          VIEWER_FIELDS.has(`${parent.name}.${field.name}`) ||
          hasAuthorize(field.astNode?.directives) ||
          (isObjectType(type) && hasAuthorize(type.astNode?.directives))
        ) {
          independent = false;
        }
      },
    }),
  );
  return independent;
}
