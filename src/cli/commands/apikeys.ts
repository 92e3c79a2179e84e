import type { Services } from '../../services.ts';
import { CliError } from '../cli-error.ts';
import type { CliOutput } from '../io.ts';
import { parse, refusable, required } from '../args.ts';

/** `gatehouse apikeys …` */
export async function apiKeysCommand(args: string[], services: Services, out: CliOutput): Promise<void> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'create': {
      const { values } = parse(rest, { client: { type: 'string' } });
      const client = required(values.client, '--client');
      out.result(await refusable(() => services.apiKeys.create(client)));
      return;
    }
    case 'list': {
      parse(rest, {});
      for (const client of await services.apiKeys.listClients()) {
        out.result(`${client.client}\t${client.activeKeys} active key${client.activeKeys === 1 ? '' : 's'}`);
      }
      return;
    }
    case 'revoke': {
      const { values } = parse(rest, { client: { type: 'string' } });
      const client = required(values.client, '--client');
      const known = (await services.apiKeys.listClients()).some((summary) => summary.client === client);
      if (!known) throw CliError.refused(`no API keys exist for the client ${client}`);
      await services.apiKeys.revokeClient(client);
      await services.revocationFeed.announce();
      return;
    }
    default:
      throw CliError.usage(`unknown command "apikeys ${sub ?? ''}"; try: apikeys create|list|revoke`);
  }
}
