import { NO_REVOCATION_CONCERNS, type RevocationConcerns } from '../../revocation-concerns.ts';
import { BearerHandler } from '../bearer/handler.ts';
import { loadKeys } from './key-source.ts';
import { type JwtBearerOptions, resolveOptions } from './options.ts';
import { ExternalTokenValidator } from './validator.ts';

/**
 * The bearer scheme over an external issuer's JWT access tokens (Auth0, Keycloak, Entra ID, any
 * OpenID provider; ASP.NET's `AddJwtBearer`). It reads `Authorization: Bearer` exactly as
 * Gatehouse's own bearer scheme does and answers the same challenge (`Bearer
 * error="invalid_token", error_description="…"`); only the validator differs. Under the name
 * `Bearer` it replaces Gatehouse's own bearer scheme; under another name it sits beside it and
 * policies (or the default scheme) name it. Gatehouse's revocation events are about its own
 * users and keys, never the issuer's: none concerns these tokens, whose sockets are re-checked at
 * the token's `exp` only.
 */
export class JwtBearerHandler extends BearerHandler {
  override readonly revocations: RevocationConcerns = NO_REVOCATION_CONCERNS;
  private readonly tokens: ExternalTokenValidator;

  /** Throws `JwtBearerOptionsError` for options that could never verify a token as meant. */
  constructor(options: JwtBearerOptions) {
    const resolved = resolveOptions(options);
    const tokens = new ExternalTokenValidator(resolved);
    super(tokens, resolved.scheme);
    this.tokens = tokens;
  }

  /**
   * Reads the issuer's discovery document and key set now (with `authority` or `jwksUrl`), so
   * that an issuer that does not answer, or whose document names another issuer, is found at
   * start-up rather than at the first request. Rejects with an `IssuerMetadataError` saying what
   * is wrong. Optional: without it both are read at first use, and requests are refused (401)
   * until they can be.
   */
  async ready(): Promise<void> {
    await loadKeys(await this.tokens.keys());
  }
}

/** A bearer scheme over an external issuer's JWT access tokens; see `JwtBearerOptions`. */
export function externalJwtBearer(options: JwtBearerOptions): JwtBearerHandler {
  return new JwtBearerHandler(options);
}
