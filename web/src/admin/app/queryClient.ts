import { createQueryClient } from '../../app/queryClient';

/** The admin console's one QueryClient (same retry and error-toast rules as the user console's). */
export const adminQueryClient = createQueryClient();
