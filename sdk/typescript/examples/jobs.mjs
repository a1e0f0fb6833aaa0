// Tag a host, run `uname -s` on every host of the tag as one job, wait for
// it and print each host's result (docs/sdk-typescript.md, Jobs).
//
//   HOSTGATE_URL=… HOSTGATE_API_KEY=… HOSTGATE_HOST_ID=… node jobs.mjs
// From a project that installed the SDK, import from '@hostgate/sdk'.
import { Client, jobSucceeded, shellOperation } from '../dist/index.js';

const c = new Client(process.env.HOSTGATE_URL, process.env.HOSTGATE_API_KEY);
await c.setTags(process.env.HOSTGATE_HOST_ID, { example: 'jobs' });
let job = await c.createJob({ target: { tags: ['example=jobs'] }, operation: shellOperation('/bin/sh', "-c 'uname -s'", 30) });
job = await c.waitJob(job.id, 300);
for await (const r of c.jobResults(job.id)) console.log(r.host_name, r.state, r.exit_code, r.stdout.trim());
console.log('every host succeeded:', jobSucceeded(job));
