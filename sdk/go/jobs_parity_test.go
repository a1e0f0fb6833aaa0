package hostgate

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"hostgate/internal/hosts"
	"hostgate/internal/httpapi"
	"hostgate/internal/jobs"
)

// The job, tag, filter and schedule objects of the three SDKs have the
// members the hub's answers have: a member added to the hub (or to one
// SDK) alone fails here.
const (
	pyJobsFile = "../python/src/hostgate/jobs.py"
	tsJobsFile = "../typescript/src/jobs.ts"
)

// tsInterfaceFields lists the members of `export interface name` in a
// TypeScript file.
func tsInterfaceFields(t *testing.T, file, name string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(b), "\nexport interface "+name+" {\n")
	if !ok {
		_, body, ok = strings.Cut(string(b), "\nexport interface "+name+"<T> {\n")
	}
	if !ok {
		t.Fatalf("%s: no interface %s", file, name)
	}
	body, _, _ = strings.Cut(body, "\n}")
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^  ([a-z_][a-z0-9_]*)\??: `).FindAllStringSubmatch(body, -1) {
		names = append(names, m[1])
	}
	return names
}

func TestJobsParityWithTheHub(t *testing.T) {
	for _, c := range []struct {
		sdk, hub reflect.Type
		name     string // the Python class and TypeScript interface
	}{
		{reflect.TypeFor[Job](), reflect.TypeFor[jobs.JobView](), "Job"},
		{reflect.TypeFor[JobTotals](), reflect.TypeFor[jobs.Totals](), "JobTotals"},
		{reflect.TypeFor[JobResult](), reflect.TypeFor[jobs.RunResult](), "JobResult"},
		{reflect.TypeFor[JobOutput](), reflect.TypeFor[jobs.RunOutput](), "JobOutput"},
		{reflect.TypeFor[JobDryRun](), reflect.TypeFor[jobs.DryRun](), "JobDryRun"},
		{reflect.TypeFor[JobTarget](), reflect.TypeFor[jobs.Target](), "JobTarget"},
		{reflect.TypeFor[JobWaves](), reflect.TypeFor[jobs.Waves](), "JobWaves"},
		{reflect.TypeFor[TagCount](), reflect.TypeFor[hosts.TagCount](), "TagCount"},
		{reflect.TypeFor[FilterQuery](), reflect.TypeFor[hosts.FilterQuery](), "FilterQuery"},
		{reflect.TypeFor[Filter](), reflect.TypeFor[hosts.SavedFilter](), "Filter"},
		{reflect.TypeFor[Schedule](), reflect.TypeFor[httpapi.Schedule](), "Schedule"},
		{reflect.TypeFor[ScheduleRun](), reflect.TypeFor[httpapi.ScheduleRun](), "ScheduleRun"},
	} {
		hub := jsonMembers(c.hub)
		sameMembers(t, "Go SDK "+c.sdk.Name(), jsonMembers(c.sdk), hub)
		sameMembers(t, "Python SDK "+c.name+" ("+pyJobsFile+")", pyDataclassFields(t, pyJobsFile, c.name), hub)
		sameMembers(t, "TypeScript SDK "+c.name+" ("+tsJobsFile+")", tsInterfaceFields(t, tsJobsFile, c.name), hub)
	}
	// The request: the SDKs send dry_run only from DryRunJob.
	hub := jsonMembers(reflect.TypeFor[httpapi.JobRequest]())
	req := append(jsonMembers(reflect.TypeFor[JobRequest]()), "dry_run")
	sameMembers(t, "Go SDK JobRequest (+ dry_run)", req, hub)
	sameMembers(t, "Python SDK JobRequest (+ dry_run)", append(pyDataclassFields(t, pyJobsFile, "JobRequest"), "dry_run"), hub)
	sameMembers(t, "TypeScript SDK JobRequest (+ dry_run)", append(tsInterfaceFields(t, tsJobsFile, "JobRequest"), "dry_run"), hub)
}
