import { request } from 'node:http';

/**
 * Sends a request whose headers may repeat (an array value is sent as one header line per item),
 * which fetch cannot do: it joins repeated headers into one line. The answer comes back as a
 * fetch Response, so the usual assertions apply.
 */
export function sendWithRepeatedHeaders(
  url: string,
  method: string,
  headers: Record<string, string | string[]>,
  body?: string,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          for (const item of Array.isArray(value) ? value : [value ?? '']) {
            responseHeaders.append(name, item);
          }
        }
        const status = res.statusCode ?? 0;
        const content = Buffer.concat(chunks);
        resolve(
          new Response(status === 204 || method === 'HEAD' ? null : content, {
            status,
            headers: responseHeaders,
          }),
        );
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
