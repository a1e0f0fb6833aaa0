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
  await page.getByTestId('recharge-submit').click();
  await shot('billing-recharge');
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
  await page.getByTestId('sign-out').click();
  await page.waitForURL('**/signin');
  await page.goto(`${BASE}/session-ended?reason=suspended`);
  await shot('session-ended');
  await ctx.close();
}
await browser.close();
if (errors.length) console.log('page errors:\n' + errors.join('\n'));
console.log(`screenshots in ${OUT}`);
