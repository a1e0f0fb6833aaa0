import { describe, expect, it } from 'vitest';
import {
  codeProblem,
  intProblem,
  passwordProblem,
  priceProblem,
  rule,
  sha256Problem,
  urlProblem,
  usernameProblem,
  versionProblem,
} from './validate';

describe('admin form checks', () => {
  it('prices', () => {
    expect(priceProblem('0')).toBeNull();
    expect(priceProblem(' 0.25 ')).toBeNull();
    expect(priceProblem('')).toBe('admin.validate.required');
    expect(priceProblem('-1')).toBe('admin.validate.price');
    expect(priceProblem('1e3')).toBe('admin.validate.price');
    expect(priceProblem('0.1234567')).toBe('admin.validate.price');
  });

  it('codes', () => {
    expect(codeProblem('control.system_info.per_call')).toBeNull();
    expect(codeProblem('Control.X')).toBe('admin.validate.code');
    expect(codeProblem('a..b')).toBe('admin.validate.code');
    expect(codeProblem(undefined)).toBe('admin.validate.required');
  });

  it('versions, URLs, hashes and whole numbers', () => {
    expect(versionProblem('1.4.0')).toBeNull();
    expect(versionProblem('1.4.0-rc.1')).toBeNull();
    expect(versionProblem('v1.4')).toBe('admin.validate.version');
    expect(urlProblem('https://dl.example.com/agent.exe')).toBeNull();
    expect(urlProblem('ftp://x/y')).toBe('admin.validate.url');
    expect(urlProblem('not a url')).toBe('admin.validate.url');
    expect(sha256Problem('a'.repeat(64))).toBeNull();
    expect(sha256Problem('g'.repeat(64))).toBe('admin.validate.sha256');
    expect(sha256Problem('a'.repeat(63))).toBe('admin.validate.sha256');
    expect(intProblem('1048576', 1)).toBeNull();
    expect(intProblem('0', 1)).toBe('admin.validate.int');
    expect(intProblem('1.5', 1)).toBe('admin.validate.int');
  });

  it('admins', () => {
    expect(usernameProblem('ops.alice')).toBeNull();
    expect(usernameProblem('al')).toBe('admin.validate.username');
    expect(usernameProblem('a b c')).toBe('admin.validate.username');
    expect(passwordProblem('12345678')).toBeNull();
    expect(passwordProblem('short')).toBe('admin.validate.password');
  });

  it('turns a check into an antd rule with the words of the problem', async () => {
    const r = rule(priceProblem, (k) => `t:${k}`);
    await expect(r.validator(null, '1')).resolves.toBeUndefined();
    await expect(r.validator(null, 'x')).rejects.toThrow('t:admin.validate.price');
  });
});
