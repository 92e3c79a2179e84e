/** What a command prints: results alone on standard output (for `$(…)`), messages on standard error. */
export interface CliOutput {
  result(line: string): void;
  message(line: string): void;
}

export const processOutput: CliOutput = {
  result: (line) => process.stdout.write(`${line}\n`),
  message: (line) => process.stderr.write(`${line}\n`),
};
