// Pure checks of the admin forms' fields; each returns an i18n key of the
// problem, or null when the value is fine.

/** A price in tokens: a number ≥ 0 with at most 6 decimals. */
export function priceProblem(v: string | undefined): string | null {
  const s = (v ?? '').trim();
  if (!s) return 'admin.validate.required';
  if (!/^\d+(\.\d{1,6})?$/.test(s)) return 'admin.validate.price';
  return null;
}

/** A pricing code: dotted lower-case words, e.g. control.system_info.per_call. */
export function codeProblem(v: string | undefined): string | null {
  const s = (v ?? '').trim();
  if (!s) return 'admin.validate.required';
  if (!/^[a-z0-9_]+(\.[a-z0-9_]+)*$/.test(s) || s.length > 128) return 'admin.validate.code';
  return null;
}

/** A version number: semver-like 1.2.3 with an optional -suffix. */
export function versionProblem(v: string | undefined): string | null {
  const s = (v ?? '').trim();
  if (!s) return 'admin.validate.required';
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(s)) return 'admin.validate.version';
  return null;
}

/** The download URL of an agent build: http(s) only. */
export function urlProblem(v: string | undefined): string | null {
  const s = (v ?? '').trim();
  if (!s) return 'admin.validate.required';
  try {
    const u = new URL(s);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') return 'admin.validate.url';
  } catch {
    return 'admin.validate.url';
  }
  return null;
}

/** A SHA-256 in hex: 64 hex digits. */
export function sha256Problem(v: string | undefined): string | null {
  const s = (v ?? '').trim();
  if (!s) return 'admin.validate.required';
  if (!/^[0-9a-fA-F]{64}$/.test(s)) return 'admin.validate.sha256';
  return null;
}

/** A whole number ≥ min (sizes, protocol versions). */
export function intProblem(v: string | undefined, min: number): string | null {
  const s = (v ?? '').trim();
  if (!s) return 'admin.validate.required';
  if (!/^\d+$/.test(s) || Number(s) < min || !Number.isSafeInteger(Number(s))) return 'admin.validate.int';
  return null;
}

/** An admin's username: 3..64 letters, digits, dot, dash, underscore. */
export function usernameProblem(v: string | undefined): string | null {
  const s = (v ?? '').trim();
  if (!s) return 'admin.validate.required';
  if (!/^[A-Za-z0-9._-]{3,64}$/.test(s)) return 'admin.validate.username';
  return null;
}

/** A new admin's password: at least 8 characters. */
export function passwordProblem(v: string | undefined): string | null {
  if (!v) return 'admin.validate.required';
  if (v.length < 8) return 'admin.validate.password';
  return null;
}

/** An antd Form rule from one of the checks above. */
export function rule(check: (v: string | undefined) => string | null, t: (k: string) => string) {
  return {
    validator: (_: unknown, v: unknown) => {
      const p = check(typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);
      return p ? Promise.reject(new Error(t(p))) : Promise.resolve();
    },
  };
}
