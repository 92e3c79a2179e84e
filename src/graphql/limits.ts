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
  SchemaMetaFieldDef,
  type SelectionSetNode,
  TypeMetaFieldDef,
  TypeNameMetaFieldDef,
  type ValueNode,
} from 'graphql';

export interface DocumentLimits {
  readonly maxDepth: number;
  readonly maxAliases: number;
  readonly maxCost: number;
  /** Pairs of fields merged into one (see `merges`); MAX_MERGES unless given. */
  readonly maxMerges?: number;
}

export interface DocumentMeasure {
  readonly depth: number;
  readonly aliases: number;
  readonly cost: number;
  readonly merges: number;
}

/**
 * Pairs of fields that execution merges into one, which validation compares pair by pair
 * (graphql-js's OverlappingFieldsCanBeMergedRule): 5,000 pairs validate in a few milliseconds,
 * while 333 copies of `post(id: 1) { author { id } }`, within the cost limit, made 166,000 and
 * held the event loop for 0.2–0.5 s. A document repeating a field a few times in one place (the
 * same `id` from several fragments) makes a few dozen.
 */
export const MAX_MERGES = 5000;

/** No limit: measures come out whole, saturated at the largest exact integer (never above it). */
const UNLIMITED: DocumentLimits = { maxDepth: Number.MAX_SAFE_INTEGER, maxAliases: Number.MAX_SAFE_INTEGER, maxCost: Number.MAX_SAFE_INTEGER, maxMerges: Number.MAX_SAFE_INTEGER };

/**
 * Selection sets of any kind (fields, inline fragments, spread fragments) nested deeper than the
 * depth limit plus this are refused as too deep: fragments add no level of their own, yet
 * graphql-js's validation and graphql-jit's compilation recurse on each of them.
 */
const NESTING_ALLOWANCE = 200;

/**
 * The three measures of docs/reference/graphql.md, on a parsed document before it is validated, so that a
 * bomb costs no more than its parse:
 *
 *   depth   nested selection sets: `{ posts { author { posts { id } } } }` is 4;
 *   aliases aliased fields, counted where fragments are expanded;
 *   cost    each field counts 1 times the product of the `first` values (or their defaults) of
 *           the lists enclosing it: `{ posts(first: 10) { id author { posts(first: 5) { id } } } }`
 *           is 1 + 10 + 10 + 10 + 50 = 81;
 *   merges  pairs of fields execution merges into one, the same response name in the same place
 *           (`{ a: post(id: 1) { id } a: post(id: 1) { id } }` makes 2: the two `a`, their two `id`).
 *
 * Fragments count as if expanded where they are spread, but each is measured once and reused
 * (decision 0030): depth at a spread is the spread's level plus the fragment's own depth less one,
 * cost the enclosing multiplier times the fragment's own cost, aliases add. The walk is linear in
 * the document, and stops as soon as a measure passes its limit in `limits` (the measure returned
 * then has that one above its limit, the others partial). Introspection counts like any other
 * field, except that `__Type.ofType` adds no level (see `unwrapsType`). Fragments that no
 * operation spreads are measured as operations of their own: nothing in a document goes unmeasured.
 *
 * Without `variables` a `first: $n` counts 1: the least the document can cost, for measuring
 * before the variables are looked at; with them, their values (or the variable's declared default).
 * Without `limits` nothing stops the walk early: that is for documents known to be small.
 */
export function measureDocument(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables?: Record<string, unknown>,
  limits: DocumentLimits = UNLIMITED,
): DocumentMeasure {
  const walker = new Walker(schema, document, variables, limits);
  try {
    return walker.measure();
  } catch (error) {
    if (error instanceof LimitPassed) return error.measure;
    throw error;
  }
}

/** The first limit the document exceeds, by name, or null. */
export function exceededLimit(measure: DocumentMeasure, limits: DocumentLimits): 'depth' | 'aliases' | 'cost' | 'merges' | null {
  if (measure.depth > limits.maxDepth) return 'depth';
  if (measure.aliases > limits.maxAliases) return 'aliases';
  if (measure.cost > limits.maxCost) return 'cost';
  if (measure.merges > (limits.maxMerges ?? MAX_MERGES)) return 'merges';
  return null;
}

/** Thrown through the walk when a measure passes its limit: nothing further needs measuring. */
class LimitPassed {
  constructor(readonly measure: DocumentMeasure) {}
}

/** Fields by response name, as execution merges them: how many were merged, and what they select. */
type Merged = Map<string, { count: number; below: Merged }>;

/** Measures of a selection set relative to itself: its fields at depth 1, costing 1 each. */
interface Relative {
  depth: number;
  aliases: number;
  cost: number;
  merges: number;
  fields: Merged;
}

const nothing = (): Relative => ({ depth: 0, aliases: 0, cost: 0, merges: 0, fields: new Map() });

class Walker {
  private readonly fragments = new Map<string, FragmentDefinitionNode>();
  /** Each fragment's own measure, once known. */
  private readonly measured = new Map<string, Relative>();
  /** Fragments being measured: a spread of one of them is a cycle, which validation refuses. */
  private readonly measuring = new Set<string>();
  private readonly values: ReadonlyMap<string, unknown> | undefined;
  private readonly maxNesting: number;
  private readonly total = { depth: 0, aliases: 0, cost: 0, merges: 0 };

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly document: DocumentNode,
    variables: Record<string, unknown> | undefined,
    private readonly limits: DocumentLimits,
  ) {
    for (const definition of document.definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) this.fragments.set(definition.name.value, definition);
    }
    this.values = variables === undefined ? undefined : variableValues(document, variables);
    this.maxNesting = saturate(limits.maxDepth + NESTING_ALLOWANCE);
  }

  measure(): DocumentMeasure {
    for (const definition of this.document.definitions) {
      if (definition.kind === Kind.OPERATION_DEFINITION) this.addRoot(this.selectionSet(definition.selectionSet, rootType(this.schema, definition), 1, 1, 1));
    }
    for (const [name, fragment] of this.fragments) {
      if (!this.measured.has(name)) this.addRoot(this.fragment(fragment, 1, 1, 1));
    }
    return { ...this.total };
  }

  /** Operations (and unspread fragments) add up: depth is the deepest, the others the sum. */
  private addRoot(measure: Relative): void {
    this.total.depth = Math.max(this.total.depth, measure.depth);
    this.total.aliases = add(this.total.aliases, measure.aliases);
    this.total.cost = add(this.total.cost, measure.cost);
    this.total.merges = add(this.total.merges, measure.merges);
    this.check(this.total, 1, 1);
  }

  /**
   * The set's own measure. `level` (the depth of its fields), `multiplier` (what each of them
   * costs) and `nesting` (selection sets of any kind around it) only serve to stop early.
   */
  private selectionSet(set: SelectionSetNode, parent: GraphQLNamedType | undefined, level: number, multiplier: number, nesting: number): Relative {
    if (nesting > this.maxNesting) throw new LimitPassed({ ...this.total, depth: saturate(this.limits.maxDepth + 1) });
    const own = nothing();
    for (const selection of set.selections) {
      let part: Relative;
      if (selection.kind === Kind.FIELD) {
        const field = fieldOf(parent, selection.name.value);
        const merged = { count: 1, below: new Map() as Merged };
        part = { depth: 1, aliases: selection.alias ? 1 : 0, cost: 1, merges: 0, fields: new Map([[(selection.alias ?? selection.name).value, merged]]) };
        if (selection.selectionSet) {
          const step = unwrapsType(parent, selection.name.value) ? 0 : 1;
          const size = this.listSize(field, selection.arguments ?? []);
          const below = this.selectionSet(selection.selectionSet, field ? getNamedType(field.type) : undefined, level + step, times(multiplier, size), nesting + 1);
          part.depth = Math.max(1, step + below.depth);
          part.aliases = add(part.aliases, below.aliases);
          part.cost = add(1, times(size, below.cost));
          part.merges = below.merges;
          merged.below = below.fields;
        }
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const type = selection.typeCondition ? this.schema.getType(selection.typeCondition.name.value) : parent;
        part = this.selectionSet(selection.selectionSet, type, level, multiplier, nesting + 1);
      } else {
        const fragment = this.fragments.get(selection.name.value);
        part = fragment === undefined ? nothing() : this.fragment(fragment, level, multiplier, nesting + 1);
      }
      own.depth = Math.max(own.depth, part.depth);
      own.aliases = add(own.aliases, part.aliases);
      own.cost = add(own.cost, part.cost);
      own.merges = add(own.merges, add(part.merges, mergeInto(own.fields, part.fields)));
      this.check(own, level, multiplier);
    }
    return own;
  }

  /**
   * A fragment's own measure, walked the first time it is spread and reused after. Its fields are
   * of its type condition's type, wherever it is spread (validation refuses a spread where that
   * type cannot apply). A fragment spread inside itself counts nothing there.
   */
  private fragment(fragment: FragmentDefinitionNode, level: number, multiplier: number, nesting: number): Relative {
    const name = fragment.name.value;
    const known = this.measured.get(name);
    if (known !== undefined) {
      this.check(known, level, multiplier);
      return known;
    }
    if (this.measuring.has(name)) return nothing();
    this.measuring.add(name);
    const own = this.selectionSet(fragment.selectionSet, this.schema.getType(fragment.typeCondition.name.value), level, multiplier, nesting);
    this.measuring.delete(name);
    this.measured.set(name, own);
    return own;
  }

  /**
   * Stops the walk when a set's measure, placed where it is, passes a limit: its depth counted
   * from `level`, its cost times `multiplier` (both lower bounds of what the whole document measures).
   */
  private check(own: Omit<Relative, 'fields'>, level: number, multiplier: number): void {
    const { maxDepth, maxAliases, maxCost, maxMerges = MAX_MERGES } = this.limits;
    const depth = own.depth === 0 ? 0 : level - 1 + own.depth;
    const cost = times(multiplier, own.cost);
    if (depth > maxDepth || own.aliases > maxAliases || cost > maxCost || own.merges > maxMerges) {
      const { total } = this;
      throw new LimitPassed({ depth: Math.max(total.depth, depth), aliases: Math.max(total.aliases, own.aliases), cost: Math.max(total.cost, cost), merges: Math.max(total.merges, own.merges) });
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
    if (node.kind === Kind.VARIABLE) return this.values === undefined ? 1 : this.values.get(node.name.value);
    return undefined;
  }
}

/**
 * The value each variable has for the measure: the request's, else its declared default (the
 * largest, should several operations of the document declare one).
 */
function variableValues(document: DocumentNode, variables: Record<string, unknown>): Map<string, unknown> {
  const values = new Map<string, unknown>();
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    for (const variable of definition.variableDefinitions ?? []) {
      const fallback = variable.defaultValue?.kind === Kind.INT ? Number(variable.defaultValue.value) : undefined;
      const previous = values.get(variable.variable.name.value);
      if (fallback !== undefined && (typeof previous !== 'number' || fallback > previous)) values.set(variable.variable.name.value, fallback);
    }
  }
  for (const [name, value] of Object.entries(variables)) {
    if (value !== undefined) values.set(name, value);
  }
  return values;
}

/**
 * Merges `source` into `target` as execution merges fields: the pairs this makes, the fields of
 * the same response name in both times each other, down through what they select. `source` is
 * copied, never shared (a fragment's fields are merged wherever it is spread).
 */
function mergeInto(target: Merged, source: Merged): number {
  let pairs = 0;
  for (const [name, field] of source) {
    const known = target.get(name);
    if (known === undefined) {
      target.set(name, copied(field));
    } else {
      pairs = add(pairs, add(times(known.count, field.count), mergeInto(known.below, field.below)));
      known.count = add(known.count, field.count);
    }
  }
  return pairs;
}

function copied(field: { count: number; below: Merged }): { count: number; below: Merged } {
  const below: Merged = new Map();
  for (const [name, inner] of field.below) below.set(name, copied(inner));
  return { count: field.count, below };
}

function rootType(schema: GraphQLSchema, operation: OperationDefinitionNode): GraphQLNamedType | undefined {
  if (operation.operation === 'mutation') return schema.getMutationType() ?? undefined;
  if (operation.operation === 'subscription') return schema.getSubscriptionType() ?? undefined;
  return schema.getQueryType() ?? undefined;
}

/**
 * `__Type.ofType` unwraps one list or non-null wrapper: one object (or null) per step, never a
 * list, and never more steps than the schema's deepest wrapping (`[Post!]!` is three), so a chain
 * of them neither fans out nor goes deeper than the schema itself. It is counted in aliases and
 * cost like any field, but adds no level: GraphiQL's introspection query nests it nine deep.
 */
function unwrapsType(parent: GraphQLNamedType | undefined, name: string): boolean {
  return name === 'ofType' && parent?.name === '__Type';
}

function fieldOf(type: GraphQLNamedType | undefined, name: string): GraphQLField<unknown, unknown> | undefined {
  // The meta-fields are no type's own: graphql-js adds them where it executes.
  if (name === SchemaMetaFieldDef.name) return SchemaMetaFieldDef;
  if (name === TypeMetaFieldDef.name) return TypeMetaFieldDef;
  if (name === TypeNameMetaFieldDef.name) return TypeNameMetaFieldDef;
  if (type && (isObjectType(type) || isInterfaceType(type))) return type.getFields()[name];
  return undefined;
}

function isList(type: GraphQLField<unknown, unknown>['type']): boolean {
  return isListType(isNonNullType(type) ? type.ofType : type);
}

/** Sums and products stop at the largest exact integer: a bomb's 2^200 never becomes Infinity or NaN. */
function add(a: number, b: number): number {
  return saturate(a + b);
}

function times(a: number, b: number): number {
  return a === 0 || b === 0 ? 0 : saturate(a * b);
}

function saturate(value: number): number {
  return Math.min(value, Number.MAX_SAFE_INTEGER);
}
