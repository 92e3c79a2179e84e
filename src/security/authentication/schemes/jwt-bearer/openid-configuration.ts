import { remoteUrl } from './options.ts';

/** What a bearer scheme takes from an issuer's discovery document. */
export interface OpenIdMetadata {
  readonly issuer: string;
  readonly jwksUri: URL;
}

/** The issuer's metadata could not be had, or does not fit the authority: no token can be checked. */
export class IssuerMetadataError extends Error {
  override readonly name = 'IssuerMetadataError';
}

export interface OpenIdConfigurationOptions {
  /** How long a document read is used. */
  readonly refreshMs: number;
  /** How long after a failed read the next is tried (until then, the last good one, or the failure). */
  readonly retryMs: number;
  readonly timeoutMs: number;
  readonly allowHttp: boolean;
}

/**
 * An authority's `/.well-known/openid-configuration` (OpenID Connect Discovery 1.0), read at
 * first use and again once `refreshMs` has passed. Its `issuer` must be the authority itself
 * (section 4.3: otherwise one issuer could speak for another), give or take a final `/`. A
 * failed read is not cached: the next use after `retryMs` tries again, and meanwhile a document
 * read before stays in use, so a short outage of the issuer costs nothing.
 */
export class OpenIdConfiguration {
  private readonly url: URL;
  private current: { readonly metadata: OpenIdMetadata; readonly readAt: number } | undefined;
  private failure: { readonly error: IssuerMetadataError; readonly at: number } | undefined;
  private reading: Promise<OpenIdMetadata> | undefined;

  constructor(
    private readonly authority: URL,
    private readonly options: OpenIdConfigurationOptions,
  ) {
    this.url = new URL(`${withoutFinalSlash(authority.href)}/.well-known/openid-configuration`);
  }

  async metadata(): Promise<OpenIdMetadata> {
    const now = Date.now();
    if (this.current !== undefined && now - this.current.readAt < this.options.refreshMs) return this.current.metadata;
    if (this.failure !== undefined && now - this.failure.at < this.options.retryMs) {
      if (this.current !== undefined) return this.current.metadata;
      throw this.failure.error;
    }
    try {
      return await (this.reading ??= this.read().finally(() => (this.reading = undefined)));
    } catch (error) {
      if (this.current !== undefined) return this.current.metadata;
      throw error;
    }
  }

  private async read(): Promise<OpenIdMetadata> {
    try {
      const metadata = this.metadataOf(await this.fetchDocument());
      this.current = { metadata, readAt: Date.now() };
      this.failure = undefined;
      return metadata;
    } catch (error) {
      const failure = error instanceof IssuerMetadataError ? error : new IssuerMetadataError(`Could not read ${this.url.href}.`, { cause: error });
      this.failure = { error: failure, at: Date.now() };
      throw failure;
    }
  }

  private async fetchDocument(): Promise<unknown> {
    // No redirects: the document must come from the authority itself.
    const response = await fetch(this.url, { redirect: 'manual', headers: { accept: 'application/json' }, signal: AbortSignal.timeout(this.options.timeoutMs) });
    if (response.status !== 200) throw new IssuerMetadataError(`${this.url.href} answered ${response.status}, not 200.`);
    try {
      return await response.json();
    } catch (cause) {
      throw new IssuerMetadataError(`${this.url.href} is not JSON.`, { cause });
    }
  }

  private metadataOf(document: unknown): OpenIdMetadata {
    const { issuer, jwks_uri: jwksUri } = (typeof document === 'object' && document !== null ? document : {}) as Record<string, unknown>;
    if (typeof issuer !== 'string' || typeof jwksUri !== 'string') throw new IssuerMetadataError(`${this.url.href} lacks "issuer" or "jwks_uri".`);
    if (withoutFinalSlash(issuer) !== withoutFinalSlash(this.authority.href)) {
      throw new IssuerMetadataError(`${this.url.href} names the issuer "${issuer}", not the authority "${this.authority.href}".`);
    }
    let jwks: URL;
    try {
      jwks = remoteUrl(jwksUri, 'jwks_uri', this.options.allowHttp);
    } catch (cause) {
      throw new IssuerMetadataError(`${this.url.href} has an unusable "jwks_uri".`, { cause });
    }
    return { issuer, jwksUri: jwks };
  }
}

function withoutFinalSlash(url: string): string {
  return url.endsWith('/') ? url.slice(0, -1) : url;
}
