import { describe, expect, it } from 'vitest';
import { FLAP_HIGH, FLAP_SOME, flapLevel } from './flaps';

describe('flapLevel', () => {
  it('is none without counts or changes', () => {
    expect(flapLevel(undefined)).toBe('none');
    expect(flapLevel({ connects: 0, disconnects: 0 })).toBe('none');
  });
  it('counts reconnections as the larger of the two counts', () => {
    expect(flapLevel({ connects: 1, disconnects: 0 })).toBe('calm');
    expect(flapLevel({ connects: 1, disconnects: 1 })).toBe('calm');
    expect(flapLevel({ connects: FLAP_SOME, disconnects: 1 })).toBe('some');
    expect(flapLevel({ connects: FLAP_HIGH - 1, disconnects: FLAP_HIGH - 1 })).toBe('some');
  });
  it('is high from FLAP_HIGH reconnections an hour', () => {
    expect(flapLevel({ connects: FLAP_HIGH, disconnects: FLAP_HIGH - 1 })).toBe('high');
    expect(flapLevel({ connects: 0, disconnects: FLAP_HIGH + 10 })).toBe('high');
  });
});
