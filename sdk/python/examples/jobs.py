"""Tag a host, run `uname -s` on every host of the tag as one job, wait for
it and print each host's result (docs/sdk-python.md, Jobs).

    HOSTGATE_URL=… HOSTGATE_API_KEY=… HOSTGATE_HOST_ID=… python3 jobs.py
"""
import os

import hostgate
from hostgate import JobRequest, JobTarget, shell_operation

c = hostgate.Client(os.environ["HOSTGATE_URL"], os.environ["HOSTGATE_API_KEY"])
c.set_tags(os.environ["HOSTGATE_HOST_ID"], {"example": "jobs"})
job = c.create_job(JobRequest(target=JobTarget(tags=["example=jobs"]),
                              operation=shell_operation("/bin/sh", "-c 'uname -s'", 30)))
job = c.wait_job(job.id, 300)
for r in c.job_results(job.id):
    print(r.host_name, r.state, r.exit_code, r.stdout.strip())
print("every host succeeded:", str(job.succeeded).lower())
