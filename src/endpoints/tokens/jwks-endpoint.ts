import type { KeyRing } from '../../tokens/key-ring.ts';
import { defineEndpoint, type Endpoint } from '../endpoint.ts';

/** `GET /.well-known/jwks.json`: the public signing keys, so other services can verify tokens. */
export function jwksEndpoint(keyRing: Pick<KeyRing, 'jwks'>): Endpoint {
  return defineEndpoint({
    method: 'GET',
    path: '/.well-known/jwks.json',
    authorization: { allowAnonymous: true },
    handle: async () => ({ status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=60' }, body: keyRing.jwks }),
  });
}
