/**
 * Form posts the way a browser sends them, over HTTP without a browser: load the page, take the
 * form with the given action (its hidden antiforgery field included) and the antiforgery cookie
 * the page set, and post the form url-encoded from the service's own origin.
 *
 *   const form = await pageForm(ctx.app, '/account/profile', '/account/logins/acme', { cookie: auth });
 *   const response = await form.submit({ origin: PUBLIC_URL });
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

export interface PageForm {
  /** The form's fields as the page wrote them (hidden ones included). */
  readonly fields: Record<string, string>;
  /** The Cookie header a browser would send with the post: the caller's cookies and the page's antiforgery cookie. */
  readonly cookie: string;
  submit(headers?: Record<string, string>, extra?: Record<string, string>): Promise<LightMyRequestResponse>;
}

/** The form posting to `action` on the page at `url`, as loaded with `headers`. */
export async function pageForm(app: FastifyInstance, url: string, action: string, headers: Record<string, string> = {}): Promise<PageForm> {
  const page = await app.inject({ url, headers: { accept: 'text/html', ...headers } });
  expect(page.statusCode, `GET ${url}`).toBe(200);
  const escaped = action.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const form = new RegExp(`<form method="post" action="${escaped}"[^>]*>([\\s\\S]*?)</form>`).exec(page.body);
  expect(form, `a form posting to ${action} on ${url}`).not.toBeNull();
  const fields: Record<string, string> = {};
  for (const [tag] of form![1]!.matchAll(/<input [^>]*>/g)) {
    const attributes = Object.fromEntries([...tag.matchAll(/([a-z-]+)="([^"]*)"/g)].map(([, name, value]) => [name!, value!]));
    // A browser sends an unticked checkbox not at all.
    if (attributes.name === undefined || (attributes.type === 'checkbox' && !/\schecked[\s>]/.test(tag))) continue;
    fields[attributes.name] = (attributes.value ?? '').replaceAll('&amp;', '&').replaceAll('&quot;', '"');
  }
  const setCookies = page.headers['set-cookie'];
  const pageCookies = (setCookies === undefined ? [] : Array.isArray(setCookies) ? setCookies : [setCookies]).map((line) => line.split(';')[0]!);
  const cookie = [headers.cookie, ...pageCookies].filter(Boolean).join('; ');
  return {
    fields,
    cookie,
    submit: (postHeaders = {}, extra = {}) =>
      app.inject({
        method: 'POST',
        url: action,
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', cookie, ...postHeaders },
        payload: new URLSearchParams({ ...fields, ...extra }).toString(),
      }),
  };
}
