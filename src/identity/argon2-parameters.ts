/** Argon2id's cost: memory in KiB, passes over it, lanes. */
export interface Argon2Parameters {
  readonly memoryKib: number;
  readonly iterations: number;
  readonly parallelism: number;
}

/** OWASP's first row (Password Storage Cheat Sheet): the default. */
export const DEFAULT_ARGON2: Argon2Parameters = { memoryKib: 19_456, iterations: 2, parallelism: 1 };

/**
 * OWASP's table of Argon2id settings that defend equally (memory traded for passes), each with one
 * lane: any setting at or above one row meets the floor. A service that must hash in less memory
 * may take more passes instead, as OWASP allows.
 */
export const OWASP_ARGON2_ROWS: readonly { readonly memoryKib: number; readonly iterations: number }[] = [
  { memoryKib: 47_104, iterations: 1 },
  { memoryKib: 19_456, iterations: 2 },
  { memoryKib: 12_288, iterations: 3 },
  { memoryKib: 9_216, iterations: 4 },
  { memoryKib: 7_168, iterations: 5 },
];

/** The least memory OWASP's table asks for with this many passes. */
export function minimumMemoryKib(iterations: number): number {
  const rows = OWASP_ARGON2_ROWS.filter((row) => row.iterations <= iterations);
  return rows.length === 0 ? Number.POSITIVE_INFINITY : Math.min(...rows.map((row) => row.memoryKib));
}

/** The parameters of a stored Argon2id hash (`$argon2id$v=19$m=…,t=…,p=…$…`), or undefined for any other. */
export function argon2ParametersOf(storedHash: string): Argon2Parameters | undefined {
  const match = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$/.exec(storedHash);
  if (!match) return undefined;
  return { memoryKib: Number(match[1]), iterations: Number(match[2]), parallelism: Number(match[3]) };
}

/**
 * Whether a stored hash is weaker than `wanted` in any of the three: it is then replaced at the
 * next successful sign-in. One at least as strong in each is kept, so that lowering the settings
 * never rewrites a stronger hash into a weaker one.
 */
export function isWeakerThan(stored: Argon2Parameters, wanted: Argon2Parameters): boolean {
  return stored.memoryKib < wanted.memoryKib || stored.iterations < wanted.iterations || stored.parallelism < wanted.parallelism;
}
