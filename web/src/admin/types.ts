// STAND-IN (FE-FLEET) for FE-SHELL's admin answer types; FE-SHELL's version
// replaces it at merge. The fleet features keep their own types beside them.
export type { Page } from '../api/types';
