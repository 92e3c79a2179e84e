import type { ServerResponse } from 'node:http';

/** A Web-standard answer written to Node's response, every `Set-Cookie` line kept. */
export async function writeNodeResponse(response: ServerResponse, answer: Response): Promise<void> {
  response.statusCode = answer.status;
  answer.headers.forEach((value, name) => {
    if (name !== 'set-cookie') response.setHeader(name, value);
  });
  const cookies = answer.headers.getSetCookie();
  if (cookies.length > 0) response.setHeader('set-cookie', cookies);
  response.end(Buffer.from(await answer.arrayBuffer()));
}
