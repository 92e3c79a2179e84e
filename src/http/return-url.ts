/** Return URLs are checked where the endpoints are, which every host shares. */
export { localReturnUrl } from '../endpoints/return-url.ts';
