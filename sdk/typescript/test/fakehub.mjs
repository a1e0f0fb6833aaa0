// A fake hub on 127.0.0.1: records every request and answers from a handler.
import http from 'node:http';

export async function fakeHub(handler = () => ({ status: 200, body: {} })) {
  const requests = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const r = { method: req.method, url: req.url, headers: req.headers, text, body: text ? JSON.parse(text) : undefined };
      requests.push(r);
      const a = (await handler(r, requests.length)) ?? { status: 200, body: {} };
      if (a.hang) return; // never answer
      res.writeHead(a.status ?? 200, { 'Content-Type': a.contentType ?? 'application/json', ...(a.headers ?? {}) });
      res.end(a.raw !== undefined ? a.raw : a.body === undefined ? '' : JSON.stringify(a.body));
    });
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${server.address().port}`;
  return {
    url,
    requests,
    close: () => new Promise((ok) => { server.closeAllConnections(); server.close(ok); }),
  };
}

/** freePort returns a port nothing listens on (listened on, then closed). */
export async function freePort() {
  const s = http.createServer();
  await new Promise((ok) => s.listen(0, '127.0.0.1', ok));
  const port = s.address().port;
  await new Promise((ok) => s.close(ok));
  return port;
}
