import { describe, expect, it } from 'vitest';
import { localInputToISO, looksLikeCron, timeZones } from './schedule';

describe('schedules', () => {
  it('takes five cron fields and refuses other lines', () => {
    for (const ok of ['*/5 * * * *', '0 3 * * 1-5', '15,45 8-18 1 JAN,JUL MON', '@daily', '@every 1h']) expect(looksLikeCron(ok), ok).toBe(true);
    for (const bad of ['', '* * * *', '* * * * * *', '*/x * * * *', 'every day']) expect(looksLikeCron(bad), bad).toBe(false);
  });

  it('turns a local time into UTC RFC 3339', () => {
    const iso = localInputToISO('2030-01-02T03:04');
    expect(iso).toMatch(/^2030-01-0[12]T\d{2}:04:00Z$/);
    expect(new Date(iso!).getTime()).toBe(new Date('2030-01-02T03:04').getTime());
    expect(localInputToISO('tomorrow')).toBeNull();
  });

  it('offers UTC first', () => {
    expect(timeZones()[0]).toBe('UTC');
  });
});
