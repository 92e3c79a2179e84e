/** Gatehouse's endpoints under `/identity`: registration, sign-in, tokens, the account and admin APIs, the pages. */
import { auth } from '../../../lib/auth.ts';

export const GET = auth.fetch;
export const POST = auth.fetch;
export const PUT = auth.fetch;
export const PATCH = auth.fetch;
export const DELETE = auth.fetch;
