// The receiver half of bench/webhook-delivery.ts, in plain JavaScript so that a worker thread can
// run it without a TypeScript loader: a keep-alive HTTPS server on 127.0.0.1 with the test CA's
// certificate for *.example.com (test/fixtures/tls) that reads each request and answers 200 at
// once. It runs on a thread of its own, so its TLS work does not share the event loop of the
// client it measures. Messages: it posts `{ port }` when listening; `'count'` is answered with
// `{ count, bytes, connections }` (requests, body bytes and TLS connections so far); `'close'` closes it.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { parentPort } from 'node:worker_threads';

const tls = new URL('../test/fixtures/tls/', import.meta.url);
let count = 0;
let bytes = 0;
let connections = 0;
const server = createServer(
  {
    key: readFileSync(new URL('receiver.key', tls)),
    cert: readFileSync(new URL('receiver.crt', tls)),
    keepAliveTimeout: 60_000,
  },
  (request, response) => {
    request.on('data', (chunk) => {
      bytes += chunk.length;
    });
    request.on('end', () => {
      count += 1;
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('ok');
    });
  },
);
server.on('secureConnection', () => {
  connections += 1;
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', (message) => {
  if (message === 'count') parentPort.postMessage({ count, bytes, connections });
  if (message === 'close') {
    server.closeAllConnections();
    server.close(() => parentPort.close());
  }
});
