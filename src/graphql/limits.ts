import {
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  getNamedType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';

export interface DocumentLimits {
  readonly maxDepth: number;
  readonly maxAliases: number;
  readonly maxCost: number;
}

export interface DocumentMeasure {
  readonly depth: number;
  readonly aliases: number;
  readonly cost: number;
}

/** Fields that describe the schema, not the data: left out of the depth (SPEC section 6). */
const INTROSPECTION = new Set(['__schema', '__type']);

/**
 * The three measures of SPEC section 6, on a parsed document before it is validated, so that a
 * bomb costs no more than its parse. Fragments are expanded where they are spread (a fragment
 * spread inside itself is not followed again: validation refuses it afterwards).
 *
 *   depth   nested selection sets: `{ posts { author { posts { id } } } }` is 4;
 *   aliases aliased fields, counted where they are expanded;
 *   cost    each field counts 1 times the product of the `first` values (or their defaults) of
 *           the lists enclosing it: `{ posts(first: 10) { id author { posts(first: 5) { id } } } }`
 *           is 1 + 10 + 10 + 10 + 50 = 81.
 *
 * Without `variables` a `first: $n` counts 1: the least the document can cost, for measuring
 * before the variables are looked at; with them, their values.
 */
export function measureDocument(schema: GraphQLSchema, document: DocumentNode, variables?: Record<string, unknown>): DocumentMeasure {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const total = { depth: 0, aliases: 0, cost: 0 };
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    const walker = new Walker(fragments, variables);
    walker.selectionSet(definition.selectionSet, rootType(schema, definition), 1, 1, []);
    total.depth = Math.max(total.depth, walker.depth);
    total.aliases += walker.aliases;
    total.cost += walker.cost;
  }
  return total;
}

/** The first limit the document exceeds, by name, or null. */
export function exceededLimit(measure: DocumentMeasure, limits: DocumentLimits): 'depth' | 'aliases' | 'cost' | null {
  if (measure.depth > limits.maxDepth) return 'depth';
  if (measure.aliases > limits.maxAliases) return 'aliases';
  if (measure.cost > limits.maxCost) return 'cost';
  return null;
}

function rootType(schema: GraphQLSchema, operation: OperationDefinitionNode): GraphQLNamedType | undefined {
  if (operation.operation === 'mutation') return schema.getMutationType() ?? undefined;
  if (operation.operation === 'subscription') return schema.getSubscriptionType() ?? undefined;
  return schema.getQueryType() ?? undefined;
}

class Walker {
  depth = 0;
  aliases = 0;
  cost = 0;

  constructor(
    private readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>,
    private readonly variables: Record<string, unknown> | undefined,
  ) {}

  /** `level` is the depth of the fields in this set; `multiplier` what each of them costs. */
  selectionSet(set: SelectionSetNode, parent: GraphQLNamedType | undefined, level: number, multiplier: number, spreads: readonly string[]): void {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        if (INTROSPECTION.has(selection.name.value)) continue;
        this.depth = Math.max(this.depth, level);
        if (selection.alias) this.aliases += 1;
        this.cost += multiplier;
        const field = fieldOf(parent, selection.name.value);
        if (selection.selectionSet) {
          const nested = multiplier * this.listSize(field, selection.arguments ?? []);
          this.selectionSet(selection.selectionSet, field ? getNamedType(field.type) : undefined, level + 1, nested, spreads);
        }
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        this.selectionSet(selection.selectionSet, parent, level, multiplier, spreads);
      } else {
        const name = selection.name.value;
        const fragment = this.fragments.get(name);
        if (fragment && !spreads.includes(name)) this.selectionSet(fragment.selectionSet, parent, level, multiplier, [...spreads, name]);
      }
    }
  }

  /** A list field's `first` (argument, variable or default); 1 for anything else. */
  private listSize(field: GraphQLField<unknown, unknown> | undefined, args: readonly { name: { value: string }; value: ValueNode }[]): number {
    if (!field || !isList(field.type)) return 1;
    const declared = field.args.find((arg) => arg.name === 'first');
    if (!declared) return 1;
    const given = args.find((arg) => arg.name.value === 'first')?.value;
    const value = given ? this.valueOf(given) : declared.defaultValue;
    return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : typeof declared.defaultValue === 'number' ? declared.defaultValue : 1;
  }

  private valueOf(node: ValueNode): unknown {
    if (node.kind === Kind.INT) return Number(node.value);
    if (node.kind === Kind.VARIABLE) return this.variables === undefined ? 1 : this.variables[node.name.value];
    return undefined;
  }
}

function fieldOf(type: GraphQLNamedType | undefined, name: string): GraphQLField<unknown, unknown> | undefined {
  if (type && (isObjectType(type) || isInterfaceType(type))) return type.getFields()[name];
  return undefined;
}

function isList(type: GraphQLField<unknown, unknown>['type']): boolean {
  return isListType(isNonNullType(type) ? type.ofType : type);
}
