package orchestrate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"hostgate/internal/agent/orchestrate/ini"
	"hostgate/internal/agentproto"
)

// ConfigFile is the family's configuration in the game directory.
const ConfigFile = "Config.ini"

// Start merges the request's overrides into Config.ini, starts the
// controller with the game directory as its working directory and, with
// spawn_subprocesses, the manifest's enabled children in order, each in
// its own folder, spawn_delay_ms apart (the delay also comes before the
// first child, after the controller). Nothing is started when the
// request, the game directory, the manifest or Config.ini is refused.
func (o *Orchestrator) Start(ctx context.Context, req StartRequest) (StartResult, error) {
	d := req.OrchestrateStartData
	if err := d.Validate(req.BasePath); err != nil {
		return StartResult{}, err
	}
	gameDir, err := ResolveGameDir(req.BasePath, d.Controller(), d.ResolveGameDir)
	if err != nil {
		return StartResult{}, err
	}
	manifest, err := LoadManifest(gameDir)
	if err != nil {
		return StartResult{}, err
	}
	sets, err := configSets(d, manifest)
	if err != nil {
		return StartResult{}, err
	}
	ctrl := filepath.Join(gameDir, d.Controller())
	if err := o.refuseRunning(gameDir, ctrl); err != nil {
		return StartResult{}, err
	}
	res := StartResult{GameDir: gameDir, Started: []agentproto.OrchestrateStarted{},
		Skipped: []agentproto.OrchestrateSkipped{}, ConfigChanged: []string{}}
	cfgPath := configPath(gameDir)
	var cfg *ini.File
	if len(sets) > 0 {
		if res.ConfigChanged, err = ini.Update(cfgPath, sets); err != nil {
			return StartResult{}, configError(err)
		}
	}
	if d.SpawnSubprocesses {
		if cfg, err = ini.Read(cfgPath); err != nil {
			return StartResult{}, configError(err)
		}
	}
	pid, err := o.sys.start(ctrl, gameDir, nil)
	if err != nil {
		return StartResult{}, systemError("starting the controller "+ctrl, err)
	}
	res.Controller = agentproto.OrchestrateProcess{Exe: ctrl, PID: pid}
	if !d.SpawnSubprocesses {
		return res, nil
	}
	return res, o.startChildren(ctx, &res, manifest, cfg, d)
}

// startChildren starts the manifest's children into res.
func (o *Orchestrator) startChildren(ctx context.Context, res *StartResult, manifest []Entry, cfg *ini.File, d agentproto.OrchestrateStartData) error {
	delay := time.Duration(d.SpawnDelay()) * time.Millisecond
	for _, e := range manifest {
		if !startFlag(cfg, e.Section) {
			res.Skipped = append(res.Skipped, agentproto.OrchestrateSkipped{Section: e.Section, Reason: agentproto.SkipDisabled})
			continue
		}
		exe := filepath.Join(res.GameDir, filepath.FromSlash(e.Exe))
		if !isFile(exe) {
			res.Skipped = append(res.Skipped, agentproto.OrchestrateSkipped{Section: e.Section, Reason: agentproto.SkipMissing})
			continue
		}
		n, numbered := e.count(d.RunGates())
		for i := 1; i <= n; i++ {
			if err := sleep(ctx, delay); err != nil {
				return fail(agentproto.CodeFailed, "cancelled before starting %s (%s); started so far: %s", e.Section, err, startedSoFar(res))
			}
			args := slices.Clone(e.Args)
			inst := 0
			if numbered {
				inst = i
				args = append(args, strconv.Itoa(i))
			}
			pid, err := o.sys.start(exe, filepath.Dir(exe), args)
			if err != nil {
				return systemError("starting "+exe+" (started so far: "+startedSoFar(res)+")", err)
			}
			res.Started = append(res.Started, agentproto.OrchestrateStarted{Section: e.Section, Exe: exe, PID: pid, Instance: inst})
		}
	}
	return nil
}

// configSets turns ports and enabled into Config.ini values, in a fixed
// order (ports, then enabled, each by name). An enabled section must be
// one of the manifest's.
func configSets(d agentproto.OrchestrateStartData, manifest []Entry) ([]ini.Set, error) {
	var sets []ini.Set
	for _, k := range sortedKeys(d.Ports) {
		section, key, err := agentproto.SplitPortKey(k)
		if err != nil {
			return nil, err
		}
		sets = append(sets, ini.Set{Section: section, Key: key, Value: strconv.Itoa(d.Ports[k])})
	}
	for _, s := range sortedKeys(d.Enabled) {
		if !slices.ContainsFunc(manifest, func(e Entry) bool { return strings.EqualFold(e.Section, s) }) {
			return nil, agentproto.ArgsError("enabled: %q is not a section of the family's manifest", s)
		}
		v := "0"
		if d.Enabled[s] {
			v = "1"
		}
		sets = append(sets, ini.Set{Section: s, Key: "GetStart", Value: v})
	}
	return sets, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// startFlag reads a section's GetStart: "0" (any integer zero) skips it;
// a section or key absent, or any other value, starts it.
func startFlag(cfg *ini.File, section string) bool {
	v, ok := cfg.Get(section, "GetStart")
	if !ok {
		return true
	}
	n, err := strconv.Atoi(v)
	return err != nil || n != 0
}

// configPath is the game directory's Config.ini; on a case-sensitive file
// system a file whose name differs only in case (config.ini) is taken.
func configPath(gameDir string) string {
	p := filepath.Join(gameDir, ConfigFile)
	if _, err := os.Stat(p); err == nil {
		return p
	}
	ents, _ := os.ReadDir(gameDir)
	for _, e := range ents {
		if strings.EqualFold(e.Name(), ConfigFile) && e.Type().IsRegular() {
			return filepath.Join(gameDir, e.Name())
		}
	}
	return p
}

func configError(err error) error {
	if errors.Is(err, ini.ErrNotGBK) {
		return fail(CodeConfigInvalid, "%v; the file was left untouched", err)
	}
	var ae *agentproto.Error
	if errors.As(err, &ae) {
		return ae
	}
	return systemError(ConfigFile, err)
}

// refuseRunning refuses a start while the family's controller runs: a
// second family would fight the first for its ports and files.
func (o *Orchestrator) refuseRunning(gameDir, ctrl string) error {
	running, err := o.sys.under(gameDir)
	if err != nil {
		return systemError("reading the process table", err)
	}
	for _, p := range running {
		if samePath(p.Exe, ctrl) {
			return fail(CodeAlreadyRunning, "%s already runs (pid %d); shut the family down first", ctrl, p.PID)
		}
	}
	return nil
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func startedSoFar(res *StartResult) string {
	parts := []string{"controller pid " + strconv.Itoa(res.Controller.PID)}
	for _, s := range res.Started {
		parts = append(parts, s.Section+" pid "+strconv.Itoa(s.PID))
	}
	return strings.Join(parts, ", ")
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
