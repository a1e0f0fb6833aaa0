import { describe, expect, it } from 'vitest';
import { sessionEndTarget } from './session';

const at = (pathname: string, search = '') => ({ pathname, search });

describe('sessionEndTarget', () => {
  it('sends a signed-in user whose session ended to the session-ended page', () => {
    expect(sessionEndTarget('ended', true, at('/billing'))).toBe('/session-ended?reason=ended');
    expect(sessionEndTarget('suspended', true, at('/hosts'))).toBe('/session-ended?reason=suspended');
  });

  it('sends a visitor who never signed in to the sign-in page, with the way back', () => {
    expect(sessionEndTarget('ended', false, at('/hosts/h1', '?x=1'))).toBe('/signin?next=%2Fhosts%2Fh1%3Fx%3D1');
    expect(sessionEndTarget('ended', false, at('/'))).toBe('/signin');
  });

  it('says suspended even without a session seen', () => {
    expect(sessionEndTarget('suspended', false, at('/hosts'))).toBe('/session-ended?reason=suspended');
  });

  it('stays on public pages', () => {
    expect(sessionEndTarget('ended', true, at('/signin'))).toBeNull();
    expect(sessionEndTarget('ended', true, at('/session-ended'))).toBeNull();
  });
});
