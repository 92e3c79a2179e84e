/** A bad configuration value: the process prints `message` alone and exits 2. */
export class ConfigError extends Error {
  /** `got` is left out of the message for secrets. */
  constructor(
    readonly variable: string,
    expectation: string,
    got: string | null,
  ) {
    super(`${variable} must be ${expectation}${got === null ? '' : ` (got ${JSON.stringify(got)})`}`);
    this.name = 'ConfigError';
  }
}
