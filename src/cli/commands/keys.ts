import { CLI_OPERATOR } from '../../membership/actor.ts';
import type { Membership } from '../../membership/membership.ts';
import { CliError } from '../cli-error.ts';
import type { CliOutput } from '../io.ts';
import { parse, required } from '../args.ts';

/** `gatehouse keys rotate|revoke`: running instances pick the change up within seconds. */
export async function keysCommand(args: string[], { signingKeys }: Membership, out: CliOutput): Promise<void> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'rotate': {
      parse(rest, {});
      out.result(await signingKeys.rotate(CLI_OPERATOR));
      return;
    }
    case 'revoke': {
      const { values } = parse(rest, { kid: { type: 'string' } });
      const kid = required(values.kid, '--kid');
      const { revoked, newKid } = await signingKeys.revoke(kid, CLI_OPERATOR);
      if (newKid) out.result(newKid);
      if (!revoked) throw CliError.refused(`no active signing key has the kid ${kid}`);
      return;
    }
    default:
      throw CliError.usage(`unknown command "keys ${sub ?? ''}"; try: keys rotate|revoke`);
  }
}
