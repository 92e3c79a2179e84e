// The check of a return URL lives with the host-neutral endpoints, which redirect to it too.
export { localReturnUrl } from '../endpoints/return-url.ts';
