// A minimal webhook receiver for one host (docs/sdk-typescript.md).
// HOSTGATE_WEBHOOK_SECRET is the host's current secret_key; PORT defaults to 8080.
import http from 'node:http';
import { DeliveryDeduper, verifyWebhook, webhookDeliveryId, webhookNewSecret } from '../dist/index.js';

let secret = process.env.HOSTGATE_WEBHOOK_SECRET ?? '';
const done = new DeliveryDeduper();

http.createServer((req, res) => {
  const chunks = [];
  let size = 0;
  req.on('data', (c) => {
    size += c.length;
    if (size > 64 << 10) req.destroy(); // a delivery is a few KiB
    else chunks.push(c);
  });
  req.on('end', async () => {
    // 1. Repeats first: an id already processed was signed with a secret since replaced.
    if (done.seen(webhookDeliveryId(req.headers))) return res.writeHead(200).end();
    try {
      // 2. Verify the raw bytes with the secret held now (signature, 300 s window).
      const ev = await verifyWebhook(req.headers, Buffer.concat(chunks), secret);
      // 3. Adopt only after verifying: record the id and the new secret together.
      done.record(ev.delivery_id);
      secret = webhookNewSecret(ev);
      console.log(`delivery ${ev.delivery_id} (${ev.event}) verified; secret replaced`);
      res.writeHead(200).end();
    } catch (err) {
      console.log(`refused: ${err.message}`);
      res.writeHead(401).end(); // the hub retries; an earlier delivery may still be on its way
    }
  });
}).listen(Number(process.env.PORT ?? 8080), () => console.log('listening'));
