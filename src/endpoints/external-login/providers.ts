import type { OidcProviderConfig } from '../../config/config.ts';
import type { Clock } from '../../platform/clock.ts';
import { assertPeerInstalled } from '../../platform/optional-peers.ts';
import { OpenIdProvider } from '../../security/authentication/schemes/oidc/openid-provider.ts';
import { GatehouseError } from '../../security/errors.ts';

/** A configured provider with its OpenID client. */
export interface ConfiguredProvider {
  readonly config: OidcProviderConfig;
  readonly client: OpenIdProvider;
}

/**
 * The configured OpenID providers by their route name (`OIDC_<NAME>_*`), each with its client.
 * openid-client (an optional peer) loads with the first discovery; a missing one fails here, when
 * a provider is configured, rather than at the first sign-in.
 */
export class Providers {
  private readonly byName: ReadonlyMap<string, ConfiguredProvider>;

  constructor(providers: readonly OidcProviderConfig[], clock: Pick<Clock, 'now'>) {
    if (providers.length > 0) assertPeerInstalled('openid-client', 'External sign-in (an OpenID Connect provider is configured)');
    this.byName = new Map(providers.map((provider) => [provider.name, { config: provider, client: openIdProvider(provider, () => clock.now()) }]));
  }

  /** @throws GatehouseError 404 for a name no provider has. */
  named(name: string): ConfiguredProvider {
    const provider = this.byName.get(name);
    if (provider === undefined) throw GatehouseError.notFound((m) => m.problemNoSuchProvider);
    return provider;
  }
}

function openIdProvider(provider: OidcProviderConfig, now: () => number): OpenIdProvider {
  const { name, issuer, clientId, clientSecret, timeoutMs } = provider;
  return new OpenIdProvider({ name, issuer, clientId, clientSecret, timeoutMs, now });
}

/** What the log keeps of a failure: its kind and message, never a token or the provider's body. */
export function errorSummary(error: unknown): { name: string; message: string; cause?: string } {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const cause = error.cause instanceof Error ? `${error.cause.name}: ${error.cause.message}` : undefined;
  return { name: error.name, message: error.message, ...(cause === undefined ? {} : { cause }) };
}
