import type { Services } from '../../services.ts';
import { CliError } from '../cli-error.ts';
import type { CliOutput } from '../io.ts';
import { parse, required } from '../args.ts';

/** `gatehouse keys rotate|revoke`: running instances pick the change up within seconds. */
export async function keysCommand(args: string[], services: Services, out: CliOutput): Promise<void> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'rotate': {
      parse(rest, {});
      const kid = await services.keyRing.rotate();
      await services.audit.record('key.rotated', { detail: { kid, by: 'cli' } });
      out.result(kid);
      return;
    }
    case 'revoke': {
      const { values } = parse(rest, { kid: { type: 'string' } });
      const kid = required(values.kid, '--kid');
      const { revoked, newKid } = await services.keyRing.revoke(kid);
      if (newKid) {
        await services.audit.record('key.rotated', { detail: { kid: newKid, by: 'cli' } });
        out.result(newKid);
      }
      if (!revoked) throw CliError.refused(`no active signing key has the kid ${kid}`);
      await services.audit.record('key.revoked', { detail: { kid, by: 'cli' } });
      await services.revocationFeed.announce();
      return;
    }
    default:
      throw CliError.usage(`unknown command "keys ${sub ?? ''}"; try: keys rotate|revoke`);
  }
}
