// Query keys of the admin console's shell pages (features keep their own under ['admin', '<feature>']).
export const aqk = {
  me: ['admin', 'me'] as const,
  summary: ['admin', 'dashboard', 'summary'] as const,
  series: (bucket: string, points: number) => ['admin', 'dashboard', 'series', bucket, points] as const,
  agentVersions: ['admin', 'dashboard', 'agent-versions'] as const,
  recharges: {
    all: ['admin', 'recharges'] as const,
    list: (p: object) => ['admin', 'recharges', p] as const,
  },
  pricing: {
    all: ['admin', 'pricing'] as const,
    rules: (expired: boolean) => ['admin', 'pricing', 'rules', expired] as const,
    mode: ['admin', 'pricing', 'mode'] as const,
  },
  versions: {
    all: ['admin', 'versions'] as const,
    list: (p: object) => ['admin', 'versions', p] as const,
  },
  audit: (p: object) => ['admin', 'audit', p] as const,
  admins: {
    all: ['admin', 'admins'] as const,
    list: (p: object) => ['admin', 'admins', p] as const,
  },
};
