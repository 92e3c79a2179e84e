import { PAGE_ASSETS_FOLDER, type PageStylesheet } from '../pages/styles/page-stylesheet.ts';
import { defineEndpoint, type Endpoint } from './endpoint.ts';

/**
 * `GET /account/assets/gatehouse.<hash>.css`: the pages' built-in stylesheet, with the
 * application's accent, from memory (built at start, pages/styles/page-stylesheet.ts; decision
 * 0094). Anonymous, since every page links it, the login page first; one fixed URL, so no request
 * path reaches the file system. Its URL names its content, so a browser may keep it for good
 * (`publicAsset`: the `no-store` of the account paths and of requests with a cookie does not apply).
 */
export function pageStylesheetEndpoint(stylesheet: PageStylesheet): Endpoint {
  const answer = {
    status: 200,
    headers: {
      'content-type': 'text/css; charset=utf-8',
      'cache-control': 'public, max-age=31536000, immutable',
      'cross-origin-resource-policy': 'same-origin',
    },
    body: stylesheet.content,
  };
  return defineEndpoint({
    method: 'GET',
    path: `${PAGE_ASSETS_FOLDER}${stylesheet.fileName}`,
    authorization: { allowAnonymous: true },
    publicAsset: true,
    handle: async () => answer,
  });
}
