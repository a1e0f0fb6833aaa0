package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sync/errgroup"

	"hostgate/internal/fleet"
	"hostgate/internal/loadtest"
)

// account is a funded user with an API key, on some hub.
type account struct {
	userID, key, access string
	email               string // its password is accountPassword
}

// accountPassword is the password of every account newAccount makes.
const accountPassword = "bench password ok"

// newAccount registers a user on h, funds it and creates an API key.
func (b *bench) newAccount(h *hubProc) (account, error) {
	var auth struct {
		AccessToken string `json:"access_token"`
		User        struct{ ID string }
	}
	email := fmt.Sprintf("bench-%d@example.com", time.Now().UnixNano())
	if err := call("POST", h.url+"/v1/public/auth/register", "", map[string]string{"email": email, "password": accountPassword}, &auth); err != nil {
		return account{}, err
	}
	var admin struct {
		AccessToken string `json:"access_token"`
	}
	if err := call("POST", h.url+"/v1/admin/auth/login", "", map[string]string{"username": benchAdmin, "password": benchPassword}, &admin); err != nil {
		return account{}, err
	}
	if err := call("POST", h.url+"/v1/admin/users/"+auth.User.ID+"/balance/adjust", admin.AccessToken,
		map[string]any{"tokens": 1e9, "reason": "bench"}, nil); err != nil {
		return account{}, err
	}
	var key struct{ Secret string }
	if err := call("POST", h.url+"/v1/user/api-keys", auth.AccessToken, map[string]string{"name": "bench"}, &key); err != nil {
		return account{}, err
	}
	return account{userID: auth.User.ID, key: key.Secret, access: auth.AccessToken, email: email}, nil
}

// scaleOutScenario: b.scaleAgents simulated agents held by b.scaleHubs hub
// instances sharing one PostgreSQL + Redis, each instance with its own
// share of the fleet (one simulator process per instance). It measures
// the time for the whole fleet to connect and the hubs' memory per agent,
// sends charged commands through every instance to agents on every
// instance, runs one job of echo hi over the whole fleet (scalejob.go),
// then restarts one instance under its share of the fleet and times the
// reconnect storm.
func (b *bench) scaleOutScenario(ctx context.Context) error {
	if !b.pg {
		fmt.Fprintln(os.Stderr, "  scale-out: skipped (needs -pg)")
		return nil
	}
	n, k := b.scaleAgents, b.scaleHubs
	if n <= 0 || k <= 0 {
		return nil
	}
	be, err := b.newBackend(true)
	if err != nil {
		return err
	}
	defer be.close()
	// Instances and provisioners share PostgreSQL's 100 connections.
	be.env["HOSTGATE_DATABASE_URL"] += "&pool_max_conns=" + fmt.Sprint(max(2, 80/(k+1)))

	envs := make([]map[string]string, k)
	files := make([]string, k)
	for i := range k {
		envs[i] = hubEnv(be, freeAddr())
		envs[i]["HOSTGATE_JOB_MAX_HOSTS"] = fmt.Sprint(max(100000, n)) // the job step targets the whole fleet
		files[i] = filepath.Join(b.work, fmt.Sprintf("scale-%d.jsonl", i))
	}
	first, err := b.startHubAt(ctx, envs[0])
	if err != nil {
		return err
	}
	acct, err := b.newAccount(first)
	if err != nil {
		first.stop()
		return err
	}
	first.stop() // the instances start together below; the schema and the account stay
	started := time.Now()
	var g errgroup.Group
	g.SetLimit(3)
	for i := range k {
		g.Go(func() error { return b.provision(ctx, envs[i], n/k, acct.userID, files[i]) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "  provisioned %d hosts in %v\n", n/k*k, time.Since(started).Round(time.Second))

	hubs := make([]*hubProc, k)
	defer func() {
		for _, h := range hubs {
			if h != nil {
				h.stop()
			}
		}
	}()
	var base int64 // the hubs' memory before any agent
	for i := range k {
		if hubs[i], err = b.startHubAt(ctx, envs[i]); err != nil {
			return err
		}
	}
	for _, h := range hubs {
		base += settledRSS(h)
	}
	fleets := make([]*fleetProc, k)
	defer func() {
		for _, f := range fleets {
			if f != nil {
				f.stop()
			}
		}
	}()
	for i := range k {
		if fleets[i], err = b.startFleet(ctx, files[i], 90*time.Minute, "--ramp", "1000"); err != nil {
			return err
		}
	}
	took, err := waitFleets(ctx, 15*time.Minute, fleets...)
	if err != nil {
		return err
	}
	label := fmt.Sprintf("scale-out %d agents, %d hubs", n/k*k, k)
	b.add(row{scenario: label, backend: be.name, metric: "connect time", value: took.Seconds(), unit: "s"})
	time.Sleep(10 * time.Second) // the connect burst's garbage collected
	var rss int64
	for _, h := range hubs {
		rss += settledRSS(h)
	}
	b.add(row{scenario: label, backend: be.name, metric: "hub RSS per agent", value: float64(rss-base) / float64(n/k*k), unit: "KiB"})

	ok, total, lat, err := b.routeAcross(ctx, hubs, files, acct.key)
	if err != nil {
		return err
	}
	b.add(row{scenario: label, backend: be.name, metric: "commands answered, any hub to any agent", value: 100 * float64(ok) / float64(total), unit: "%"})
	b.add(row{scenario: label, backend: be.name, metric: "command p50 (sequential, read file)", value: ms(lat), unit: "ms", floor: "floor_ws p50"})

	// One job of echo hi over the whole fleet (issue 26 item 8).
	problem, err := b.scaleJob(ctx, be, hubs, files, acct, lat)
	if err != nil {
		return err
	}

	// The reconnect storm: one instance restarts under its share.
	last := k - 1
	var st storm
	hubs[last], st, err = b.restartUnder(ctx, hubs[last], fleets[last]) // nil when it failed
	if err != nil {
		return err
	}
	b.addStorm(fmt.Sprintf("reconnect storm: 1 of %d hubs restarted, %d agents", k, n/k), be.name, st)
	return problem
}

// routeAcross sends a charged file read through every hub to agents held
// by every hub (three agents per pair), one at a time, and reports how many
// were answered, of how many, and the median latency.
func (b *bench) routeAcross(ctx context.Context, hubs []*hubProc, files []string, key string) (ok, total int, p50 time.Duration, err error) {
	body, _ := json.Marshal(map[string]any{"controls": 32, "path": "C:\\fleet.txt"})
	var lats []time.Duration
	for i, file := range files {
		creds, err := readCreds(file)
		if err != nil {
			return 0, 0, 0, err
		}
		for _, h := range hubs {
			for range 3 {
				host := creds[rand.N(len(creds))].HostID
				post := b.poster(h.url+"/v1/api/hosts/"+host+"/files/text", body)
				t := time.Now()
				err := post(context.WithValue(ctx, tokenKey{}, key))
				total++
				if err == nil {
					ok++
					lats = append(lats, time.Since(t))
				} else {
					fmt.Fprintf(os.Stderr, "  command to an agent of hub %d: %v\n", i, err)
				}
			}
		}
	}
	return ok, total, loadtest.Percentile(lats, 50), nil
}

func readCreds(file string) ([]fleet.Credentials, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	creds, err := fleet.ReadCredentials(f)
	if err == nil && len(creds) == 0 {
		err = errors.New("no credentials in " + file)
	}
	return creds, err
}
