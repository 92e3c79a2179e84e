import { parseArgs } from 'node:util';
import { GatehouseError } from '../security/errors.ts';
import { CliError } from './cli-error.ts';

/** Domain refusals (validation, conflicts) become exit code 1 with their sentence. */
export async function refusable<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof GatehouseError) throw CliError.refused(describeRefusal(error));
    throw error;
  }
}

function describeRefusal(error: GatehouseError): string {
  const errors = error.extensions.errors as Record<string, string[]> | undefined;
  const reasons = errors ? Object.values(errors).flat() : [];
  return reasons.length > 0 ? reasons.join(' ') : (error.detail ?? error.message);
}

export function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw CliError.usage(`${flag} is required`);
  return value;
}

type Options = NonNullable<Parameters<typeof parseArgs>[0]>['options'];
/** Spelt out so that declarations can name it (node's own option-config type is not exported). */
type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: false }>>;

/** Strict flag parsing: an unknown flag or a stray argument is a usage error (exit 2). */
export function parse<O extends Options>(args: string[], options: O): Parsed<O> {
  try {
    return parseArgs({ args: attachValues(args, options), options, strict: true, allowPositionals: false });
  } catch (error) {
    throw CliError.usage(error instanceof Error ? error.message : String(error));
  }
}

/**
 * `--kid -MV04…` as `--kid=-MV04…`: node's parser refuses a value that starts with a dash, yet
 * kids (base64url), keys and passwords may, even with two (`--0lls…`, one kid in 4,096). Only a
 * flag of the command stays a flag.
 */
function attachValues(args: string[], options: Options): string[] {
  const result: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    const next = args[index + 1];
    const name = arg.startsWith('--') && !arg.includes('=') ? arg.slice(2) : undefined;
    if (name !== undefined && options?.[name]?.type === 'string' && next !== undefined && next.startsWith('-') && !isFlag(next, options)) {
      result.push(`${arg}=${next}`);
      index++;
    } else {
      result.push(arg);
    }
  }
  return result;
}

/** `--name` or `--name=…` for an option the command has. */
function isFlag(arg: string, options: Options): boolean {
  if (!arg.startsWith('--')) return false;
  const name = arg.slice(2).split('=', 1)[0]!;
  return options !== undefined && Object.hasOwn(options, name);
}
