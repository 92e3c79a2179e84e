import { type Phrase, worded } from '../../i18n/phrase.ts';
import type { ProviderSignIn } from '../../membership/provider-sign-in.ts';
import type { PageRendering } from '../../pages/rendering.ts';
import { problem } from '../../security/problem-details.ts';
import { prefersHtml } from '../browser-navigation.ts';
import { CookieList } from '../cookies.ts';
import type { EndpointRequest, EndpointResponse } from '../endpoint.ts';
import { NO_STORE } from '../no-store.ts';
import { pageResponse } from '../page-response.ts';
import { problemResponse } from '../problem-response.ts';
import type { CorrelationCookie } from './correlation-cookie.ts';

/** The statuses a failed flow answers with: the caller's mistake, a refusal, or the provider out of reach. */
export type RefusalStatus = 400 | 403 | 502;

/**
 * The answers to an external sign-in that fails: the correlation cookie cleared, nothing kept by
 * a cache, and a page (for a browser) or problem+json saying what to do. No session is opened.
 */
export class RefusedFlow {
  constructor(
    private readonly providerSignIn: Pick<ProviderSignIn, 'refuse'>,
    private readonly correlation: CorrelationCookie,
    private readonly pages: Pick<PageRendering, 'render' | 'language' | 'headersFor'>,
  ) {}

  /**
   * A failure of the flow before it reached a user: one `external.refused` event (its `reason` a
   * fixed code, never the provider's text), then its answer.
   */
  async refuse(request: EndpointRequest, provider: string, reason: string, status: RefusalStatus, message: Phrase): Promise<EndpointResponse> {
    await this.providerSignIn.refuse(provider, reason, request.ip);
    return this.refused(request, reason, status, message);
  }

  /** The provider could not be reached (discovery, the token endpoint, its keys). */
  unavailable(request: EndpointRequest, provider: string): Promise<EndpointResponse> {
    return this.refuse(request, provider, 'provider-unavailable', 502, (m) => m.problemExternalUnavailable({ provider }));
  }

  /** The answer to a failure the use case has recorded already, in the request's language. */
  refused(request: EndpointRequest, reason: string, status: RefusalStatus, message: Phrase): EndpointResponse {
    const cookies = new CookieList();
    this.correlation.clear(cookies);
    if (prefersHtml(request.headers.accept)) {
      const page = pageResponse(this.pages, this.pages.render('externalLoginRefused', { message: worded(message, request.messages()) }, this.pages.language(request.headers['accept-language'])), status);
      return { ...page, headers: { ...NO_STORE, ...page.headers }, cookies: cookies.cookies };
    }
    const code = status === 502 ? 'GH_EXTERNAL_PROVIDER_UNAVAILABLE' : status === 403 ? 'GH_FORBIDDEN' : 'GH_VALIDATION_FAILED';
    return { ...problemResponse(problem(code, message, { reason }), NO_STORE), cookies: cookies.cookies };
  }
}
