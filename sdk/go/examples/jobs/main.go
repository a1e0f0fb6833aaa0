// Command jobs tags a host, runs `uname -s` on every host of the tag as
// one job, waits for it and prints each host's result (sdk/go/README.md,
// Jobs). Environment: HOSTGATE_URL, HOSTGATE_API_KEY, HOSTGATE_HOST_ID.
//
//	go run ./sdk/go/examples/jobs
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	hostgate "hostgate/sdk/go"
)

func main() {
	ctx := context.Background()
	c := hostgate.New(os.Getenv("HOSTGATE_URL"), os.Getenv("HOSTGATE_API_KEY"))
	if _, err := c.SetTags(ctx, os.Getenv("HOSTGATE_HOST_ID"), map[string]string{"example": "jobs"}); err != nil {
		log.Fatal(err)
	}
	job, err := c.CreateJob(ctx, hostgate.JobRequest{
		Target:    hostgate.JobTarget{Tags: []string{"example=jobs"}},
		Operation: hostgate.ShellOperation("/bin/sh", "-c 'uname -s'", 30),
	})
	if err != nil {
		log.Fatal(err)
	}
	if job, err = c.WaitJob(ctx, job.ID, 5*time.Minute); err != nil {
		log.Fatal(err)
	}
	for r, err := range c.JobResults(ctx, job.ID, "") {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(r.HostName, r.State, *r.ExitCode, strings.TrimSpace(r.Stdout))
	}
	fmt.Println("every host succeeded:", job.Succeeded())
}
