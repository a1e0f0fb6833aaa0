package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"hostgate/internal/fleet"
)

// provision creates n hosts with install credentials in the store of the
// hub whose environment is env (the credentials name that hub), owned by
// owner ("" for a new user), into the file out.
func (b *bench) provision(ctx context.Context, env map[string]string, n int, owner, out string) error {
	args := []string{"provision", "--count", strconv.Itoa(n), "--out", out, "--workers", "16"}
	if owner != "" {
		args = append(args, "--owner-id", owner)
	}
	p, err := startProc(ctx, filepath.Join(b.bins, "hostgate-fleet"), env, b.log, args...)
	if err != nil {
		return err
	}
	<-p.done
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		return fmt.Errorf("hostgate-fleet provision exited %d (log: %s)", code, b.logName)
	}
	return nil
}

// fleetProc is a running hostgate-fleet whose status lines are followed.
type fleetProc struct {
	*proc
	mu   sync.Mutex
	last fleet.Stats
	// connectedMs is the fleet's all_connected time, once reported.
	connectedMs int64
}

// startFleet runs the simulated agents of the credentials file creds for
// at most limit, reporting their status every 250 ms.
func (b *bench) startFleet(ctx context.Context, creds string, limit time.Duration, extra ...string) (*fleetProc, error) {
	pr, pw := io.Pipe()
	args := append([]string{"run", "--creds", creds, "--duration", limit.String(), "--every", "250ms",
		"--sources", "8"}, extra...)
	p, err := startProc(ctx, filepath.Join(b.bins, "hostgate-fleet"), nil, pw, args...)
	if err != nil {
		return nil, err
	}
	f := &fleetProc{proc: p}
	go func() {
		<-p.done
		pw.Close()
	}()
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			var line struct {
				Event string
				Stats fleet.Stats
			}
			if json.Unmarshal(sc.Bytes(), &line) != nil {
				fmt.Fprintln(b.log, sc.Text()) // the fleet's own messages
				continue
			}
			f.mu.Lock()
			f.last = line.Stats
			if line.Event == "all_connected" {
				f.connectedMs = line.Stats.AllConnectedMs
			}
			f.mu.Unlock()
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	return f, nil
}

func (f *fleetProc) stats() (fleet.Stats, int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last, f.connectedMs
}

// waitFleets waits until every fleet holds all of its agents welcomed and
// returns how long that took; it fails after limit, or when a fleet stops.
func waitFleets(ctx context.Context, limit time.Duration, fleets ...*fleetProc) (time.Duration, error) {
	start := time.Now()
	for {
		all := true
		for _, f := range fleets {
			select {
			case <-f.done:
				return 0, errors.New("a fleet process stopped early")
			default:
			}
			s, _ := f.stats()
			if s.Agents == 0 || s.Welcomed < int64(s.Agents) {
				all = false
			}
		}
		if all {
			return time.Since(start), nil
		}
		if time.Since(start) > limit {
			var held, want int64
			for _, f := range fleets {
				s, _ := f.stats()
				held, want = held+s.Welcomed, want+int64(s.Agents)
			}
			return 0, fmt.Errorf("%d of %d agents welcomed after %v", held, want, limit)
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// storm is what a hub restart under its fleet measured.
type storm struct {
	back    time.Duration // from the old process's exit to every agent welcomed again
	peakCPU float64       // cores, of the new process
	peakRSS int64         // KiB, of the new process
}

// restartUnder stops h while fl's agents are connected to it, waits until
// the fleet has seen them drop, starts the hub again on the same address
// and data, and times the reconnect storm until every agent is back.
func (b *bench) restartUnder(ctx context.Context, h *hubProc, fl *fleetProc) (*hubProc, storm, error) {
	h.stop()
	down := time.Now()
	for {
		if s, _ := fl.stats(); s.Welcomed < int64(s.Agents) {
			break
		}
		if time.Since(down) > 10*time.Second {
			return nil, storm{}, errors.New("the fleet did not notice the hub stop within 10 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	h, err := b.startHubAt(ctx, h.env)
	if err != nil {
		return nil, storm{}, err
	}
	s := sample(h.cmd.Process.Pid)
	_, err = waitFleets(ctx, 5*time.Minute, fl)
	st := storm{back: time.Since(down)}
	st.peakCPU, st.peakRSS = s.end()
	return h, st, err
}

// addStorm records a storm's figures under label.
func (b *bench) addStorm(label, backend string, st storm) {
	b.add(row{scenario: label, backend: backend, metric: "all back after restart", value: st.back.Seconds(), unit: "s"})
	b.add(row{scenario: label, backend: backend, metric: "hub peak CPU", value: st.peakCPU * 100, unit: "% of a core"})
	b.add(row{scenario: label, backend: backend, metric: "hub peak RSS", value: float64(st.peakRSS) / 1024, unit: "MiB"})
}

// sampler follows a process's CPU and resident memory every 200 ms and
// keeps their peaks.
type sampler struct {
	pid     int
	stop    chan struct{}
	done    chan struct{}
	peakCPU float64 // in cores
	peakRSS int64   // KiB
}

func sample(pid int) *sampler {
	s := &sampler{pid: pid, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t0, c0 := time.Now(), cpuTicks(pid)
		for {
			select {
			case <-s.stop:
				return
			case <-time.After(200 * time.Millisecond):
			}
			t1, c1 := time.Now(), cpuTicks(pid)
			s.peakCPU = max(s.peakCPU, float64(c1-c0)/clockTicks/t1.Sub(t0).Seconds())
			s.peakRSS = max(s.peakRSS, rssKiB(pid))
			t0, c0 = t1, c1
		}
	}()
	return s
}

// end stops sampling and returns the peaks.
func (s *sampler) end() (cores float64, rssKiB int64) {
	close(s.stop)
	<-s.done
	return s.peakCPU, s.peakRSS
}

// settledRSS is a hub's resident memory once garbage is collected: the
// bench asks the hub for a collection (pprof's heap profile with gc=1 on
// its metrics listener) and gives the runtime a few seconds to return
// freed pages, so that figures taken before and after a fleet compare
// like with like.
func settledRSS(h *hubProc) int64 {
	if resp, err := setupClient.Get(h.metrics + "/debug/pprof/heap?gc=1"); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	time.Sleep(3 * time.Second)
	return rssKiB(h.cmd.Process.Pid)
}

// clockTicks is the kernel's USER_HZ, the unit of /proc/<pid>/stat times.
const clockTicks = 100
