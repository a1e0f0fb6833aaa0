import { describe, expect, it } from 'vitest';
import { provisioningBody, provisioningFileName, provisioningFileText } from './provisioning';

describe('provisioningBody', () => {
  it('asks for autologon only when ticked, leaving defaults to the hub', () => {
    expect(provisioningBody({ autologon: false, username: 'ops', password: 'x'.repeat(16) })).toEqual({});
    expect(provisioningBody({ autologon: true })).toEqual({ autologon: {} });
    expect(provisioningBody({ autologon: true, username: '  ', password: '' })).toEqual({ autologon: {} });
    expect(provisioningBody({ autologon: true, username: ' ops ', password: 'p'.repeat(16) })).toEqual({
      autologon: { username: 'ops', password: 'p'.repeat(16) },
    });
  });
});

describe('provisioning file', () => {
  it('is named as the hub names it and written compact', () => {
    expect(provisioningFileName('h-1')).toBe('provisioning-h-1.json');
    const p = { schema_version: 1, hub: { host_id: 'h-1', bid: 2 ** 53, secret_key: 's', install_token: 't', agent_privkey_seed: 'a', agent_pubkey: 'b' } };
    const text = provisioningFileText(p);
    expect(text.endsWith('}\n')).toBe(true);
    expect(text).not.toContain('  ');
    expect(JSON.parse(text)).toEqual(p);
  });
});
