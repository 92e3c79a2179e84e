/**
 * Options given in code are checked by name, like settings: JavaScript callers have no compiler,
 * and a misspelt option (`cookie: false`, `polices`) would otherwise be ignored, leaving a feature
 * on or a policy out without a word.
 */

/**
 * Every option of an options type, each marked `true`. Written as
 * `{ … } as const satisfies OptionNames<Options>`, the list fails to compile when the type gains
 * an option the list lacks, or the list names one the type does not have.
 */
export type OptionNames<Options> = { readonly [Name in keyof Required<Options>]: true };

/** Refuses the first key of `options` that `names` does not list, naming it and the closest known name. */
export function refuseUnknownOptions(where: string, options: object, names: Readonly<Record<string, true>>): void {
  for (const name of Object.keys(options)) {
    if (!Object.hasOwn(names, name)) throw new Error(unknownNameMessage(`${where} has no option "${name}"`, name, Object.keys(names)));
  }
}

/** The options object at `where`, refused unless it is a plain object (`features: false` would turn nothing off). */
export function refuseNonObject(where: string, value: unknown): asserts value is object {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${where} must be an object (got ${describe(value)}).`);
}

/** `message`, then the known name closest to `name` when one is close, else every known name. */
export function unknownNameMessage(message: string, name: string, known: readonly string[]): string {
  const closest = closestName(name, known);
  return closest === undefined ? `${message}; the known ones are ${known.join(', ')}.` : `${message}; did you mean "${closest}"?`;
}

/**
 * The known name a typo most likely meant: fewest edits, ignoring case, within a third of the
 * name's length (at least two), so that `polices` finds `policies` and `xyz` finds nothing.
 */
export function closestName(name: string, known: readonly string[]): string | undefined {
  const limit = Math.max(2, Math.floor(name.length / 3));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of known) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance; option names are short, and only a start-up failure calls this. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'string' ? JSON.stringify(value) : String(value);
}
