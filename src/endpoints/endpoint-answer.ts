import type { Messages } from '../i18n/messages.ts';
import { type WordedFieldErrors, worded, wordedFieldErrors } from '../i18n/phrase.ts';
import { type FieldErrors, GatehouseError } from '../security/errors.ts';
import type { Endpoint, EndpointRequest, EndpointResponse } from './endpoint.ts';

/**
 * The endpoint's answer, as every host gets it. A form post the endpoint refuses with a caller's
 * error (a `GatehouseError` below 500) is answered with the endpoint's page again, listing the
 * errors by field, at the error's status; JSON callers get the error, which the host writes as
 * problem+json.
 */
export async function endpointAnswer(endpoint: Endpoint, request: EndpointRequest): Promise<EndpointResponse> {
  if (!request.form || endpoint.formErrors === undefined) return endpoint.handle(request);
  try {
    return await endpoint.handle(request);
  } catch (error) {
    if (!isCallersError(error)) throw error;
    return formRefusal(error, await endpoint.formErrors(request as EndpointRequest<never>, fieldErrorsOf(error, request.messages())));
  }
}

/** A refusal a form post answers with its page: the caller's mistake, not the service's failure. */
export function isCallersError(error: unknown): error is GatehouseError {
  return error instanceof GatehouseError && error.status < 500;
}

/** The errors by field a refusal lists on its form, in the language of `messages`; one without fields is the form's own error. */
export function fieldErrorsOf(error: GatehouseError, messages: Messages): FieldErrors {
  const { errors, detail } = error.wording;
  if (errors !== undefined) return wordedFieldErrors(errors, messages);
  return { '': [detail === undefined ? messages.problemRequestRefused : worded(detail, messages)] };
}

/** `page`, the form again with the refusal's errors, answered at the refusal's status (with `Retry-After` for a 429). */
export function formRefusal(error: GatehouseError, page: EndpointResponse): EndpointResponse {
  const retry: Record<string, string> = error.retryAfterSeconds === undefined ? {} : { 'retry-after': String(error.retryAfterSeconds) };
  return { ...page, status: error.status, headers: { ...page.headers, ...retry } };
}

/**
 * A form post whose parameters, query or body failed validation: the endpoint's page with the
 * errors at 400 in the request's language, or undefined when the caller gets problem+json (not a
 * form, or no page).
 */
export async function invalidFormAnswer(endpoint: Endpoint, request: EndpointRequest, errors: WordedFieldErrors): Promise<EndpointResponse | undefined> {
  if (!request.form || endpoint.formErrors === undefined) return undefined;
  return refusedForm(endpoint, request, wordedFieldErrors(errors, request.messages()), 400);
}

async function refusedForm(endpoint: Endpoint, request: EndpointRequest, errors: FieldErrors, status: number): Promise<EndpointResponse> {
  const page = await endpoint.formErrors!(request as EndpointRequest<never>, errors);
  return { ...page, status };
}
