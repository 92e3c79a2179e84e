import { CLI_OPERATOR } from '../../membership/actor.ts';
import type { Membership } from '../../membership/membership.ts';
import { CliError } from '../cli-error.ts';
import type { CliOutput } from '../io.ts';
import { parse, refusable, required } from '../args.ts';

/** `gatehouse apikeys …` */
export async function apiKeysCommand(args: string[], { apiKeys }: Membership, out: CliOutput): Promise<void> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'create': {
      const { values } = parse(rest, { client: { type: 'string' } });
      const client = required(values.client, '--client');
      out.result(await refusable(() => apiKeys.create(client, CLI_OPERATOR)));
      return;
    }
    case 'list': {
      parse(rest, {});
      for (const client of await apiKeys.list()) {
        out.result(`${client.client}\t${client.activeKeys} active key${client.activeKeys === 1 ? '' : 's'}`);
      }
      return;
    }
    case 'revoke': {
      const { values } = parse(rest, { client: { type: 'string' } });
      const client = required(values.client, '--client');
      const known = (await apiKeys.list()).some((summary) => summary.client === client);
      if (!known) throw CliError.refused(`no API keys exist for the client ${client}`);
      await apiKeys.revoke(client, CLI_OPERATOR);
      return;
    }
    default:
      throw CliError.usage(`unknown command "apikeys ${sub ?? ''}"; try: apikeys create|list|revoke`);
  }
}
