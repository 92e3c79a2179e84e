import { type DocumentNode, type GraphQLSchema, getNamedType, isObjectType, TypeInfo, visit, visitWithTypeInfo, BREAK } from 'graphql';
import { authorizeRuleOf, isGuarded } from './authorize-directive.ts';

/**
 * Whether a document's result is the same for every caller allowed to run it, as far as the
 * schema tells: it selects no field under a rule (`@authorize` on the field, its type, or the type
 * it returns). The result of such a subscription for one event can then be computed once and sent
 * to every subscriber (each one's `subscribe` is still authorized on its own). A resolver that
 * reads the caller without a rule is found when it runs (`GraphQLContext.user` records the read).
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
        if (isGuarded(parent, field) || (isObjectType(type) && authorizeRuleOf(type) !== null)) {
          independent = false;
          return BREAK;
        }
      },
    }),
  );
  return independent;
}
