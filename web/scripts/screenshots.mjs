// Screenshots of every page at laptop (1366×800) and phone (390×844) widths,
// for a person to look at. Needs a console served at BASE (npm run preview
// with a hub behind /v1) and the machine's Chromium; never downloads one.
//   node scripts/screenshots.mjs [outDir]
import { mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';

const BASE = process.env.BASE ?? 'http://127.0.0.1:4173';
const OUT = process.argv[2] ?? 'shots';
const LANG = process.env.SHOT_LANG ?? 'en';
mkdirSync(OUT, { recursive: true });

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

const sizes = { laptop: { width: 1366, height: 800 }, phone: { width: 390, height: 844 } };
const email = `shot-${Date.now()}@example.com`;
const errors = [];

for (const [name, viewport] of Object.entries(sizes)) {
  const ctx = await browser.newContext({ viewport, locale: LANG });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => errors.push(`${name}: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && errors.push(`${name} console: ${m.text()}`));
  const shot = async (label) => {
    await page.waitForTimeout(700);
    await page.screenshot({ path: `${OUT}/${label}-${name}.png`, fullPage: false });
  };
  await page.goto(`${BASE}/signin`);
  await shot('signin');
  await page.getByTestId('signin-submit').click();
  await shot('signin-invalid');
  await page.goto(`${BASE}/signup`);
  await page.getByTestId('signup-email').fill(name === 'laptop' ? email : `p-${email}`);
  await page.getByTestId('signup-password').fill('correct horse battery');
  await page.getByTestId('signup-submit').click();
  await page.waitForURL('**/hosts');
  await page.getByTestId('hosts-table').waitFor();
  await shot('hosts-empty');
  for (let i = 1; i <= 3; i++) {
    await page.getByTestId('host-create').click();
    if (i === 1) await shot('host-create');
    await page.getByTestId('host-name').fill(`web-${i}`);
    await page.getByTestId('host-create-submit').click();
    await page.waitForURL('**/hosts/*');
    await page.goto(`${BASE}/hosts`);
  }
  await page.getByTestId('host-row').first().waitFor();
  await shot('hosts');
  await page.goto(`${BASE}/api-keys`);
  await shot('apikeys-empty');
  await page.getByTestId('apikey-create').click();
  await page.getByTestId('apikey-name').fill('deploy');
  await page.keyboard.press('Enter');
  await page.getByTestId('apikey-secret').waitFor();
  await shot('apikey-secret');
  await page.getByTestId('apikey-secret-done').click();
  await shot('apikeys');
  await page.getByTestId('apikey-delete').first().click();
  await shot('apikey-delete-confirm');
  await page.keyboard.press('Escape');
  await page.goto(`${BASE}/billing`);
  await shot('billing');
  await page.getByTestId('recharge-amount').fill('10');
  const tab = ctx.waitForEvent('page', { timeout: 10_000 }).catch(() => null);
  await page.getByTestId('recharge-submit').click();
  await page.getByTestId('recharge-status').waitFor();
  await shot('billing-recharge');
  const checkout = await tab;
  if (checkout) {
    await checkout.waitForLoadState();
    await checkout.screenshot({ path: `${OUT}/checkout-${name}.png` });
    const submit = checkout.locator('form button[type="submit"], form input[type="submit"], form button:not([type])');
    if (await submit.count()) await submit.first().click();
    else {
      // No checkout form (the hub's dummy provider): send its notification as the checkout would.
      const list = await (await page.request.get(`${BASE}/v1/user/billing/recharges?status=pending`)).json();
      const o = list.items[0];
      await page.request.post(`${BASE}/v1/public/webhooks/payment/dummy`, { data: { order_no: o.order_no, amount_cny: o.amount_cny } });
    }
    await checkout.waitForTimeout(500);
    await checkout.close();
    await page.locator('[data-testid="recharge-status"][data-status="paid"]').waitFor({ timeout: 30_000 });
    await shot('billing-paid');
  } else {
    errors.push(`${name}: no checkout tab opened`);
  }
  // The access cookie goes away (as when it expires): the console refreshes silently.
  const cookies = await ctx.cookies();
  await ctx.clearCookies();
  await ctx.addCookies(cookies.filter((c) => c.name !== 'gw_at'));
  await page.waitForTimeout(6_000);
  if (!page.url().endsWith('/billing')) errors.push(`${name}: after losing gw_at the page went to ${page.url()}`);
  if (!(await ctx.cookies()).some((c) => c.name === 'gw_at')) errors.push(`${name}: no gw_at after the silent refresh`);
  await page.goto(`${BASE}/profile`);
  await shot('profile');
  await page.getByTestId('lang-switch').click();
  await shot('profile-zh');
  await page.goto(`${BASE}/hosts`);
  await page.getByTestId('host-row').first().waitFor();
  await shot('hosts-zh');
  if (name === 'phone') {
    await page.getByRole('button', { name: /菜单|menu/i }).click();
    await shot('phone-menu');
    await page.keyboard.press('Escape');
  }
  await page.getByTestId('lang-switch').click();
  if (process.env.ADMIN_PASSWORD && name === 'laptop') {
    // An admin suspends the user: the open console leaves by itself.
    const adm = await (await page.request.post(`${BASE}/v1/admin/auth/login`, { data: { username: process.env.ADMIN_USER ?? 'admin', password: process.env.ADMIN_PASSWORD } })).json();
    const me = await (await page.request.get(`${BASE}/v1/user/me`)).json();
    const t0 = Date.now();
    const r = await page.request.post(`${BASE}/v1/admin/users/${me.id}/suspend`, { headers: { Authorization: `Bearer ${adm.access_token}` }, data: { reason: 'screenshots' } });
    if (!r.ok()) errors.push(`suspend: ${r.status()} ${await r.text()}`);
    await page.waitForURL('**/session-ended**', { timeout: 15_000 });
    console.log(`session ended ${((Date.now() - t0) / 1000).toFixed(1)} s after the suspension: ${page.url()}`);
    await shot('session-ended');
    await page.goto(`${BASE}/signin`);
    await page.getByTestId('signin-email').fill(email);
    await page.getByTestId('signin-password').fill('correct horse battery');
    await page.getByTestId('signin-submit').click();
    await page.getByTestId('form-error').waitFor();
    await shot('signin-suspended');
  } else {
    await page.getByTestId('sign-out').click();
    await page.waitForURL('**/signin');
    await page.goto(`${BASE}/hosts`);
    await page.waitForURL('**/signin**');
    await shot('signed-out');
  }
  await ctx.close();
}
await browser.close();
if (errors.length) console.log('page errors:\n' + errors.join('\n'));
console.log(`screenshots in ${OUT}`);
