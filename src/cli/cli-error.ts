/** Exit codes of the CLI (docs/reference/cli.md). */
export const ExitCode = { ok: 0, refused: 1, usage: 2 } as const;

/** A command that cannot go on: `message` is printed alone on standard error. */
export class CliError extends Error {
  constructor(
    readonly exitCode: 1 | 2,
    message: string,
  ) {
    super(message);
    this.name = 'CliError';
  }

  static usage(message: string): CliError {
    return new CliError(ExitCode.usage, message);
  }

  static refused(message: string): CliError {
    return new CliError(ExitCode.refused, message);
  }
}
