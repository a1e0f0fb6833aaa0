package jobs

import (
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"hostgate/internal/apperr"
)

// Limits and defaults of a request (docs/jobs.md).
const (
	MaxNameLen         = 100
	DefaultExpiresInS  = 3600
	MinExpiresInS      = 60
	MaxExpiresInS      = 604800
	DefaultConcurrency = 50
	MaxConcurrency     = 1000
	MaxWaveSize        = 100000
	MaxPauseS          = 86400
	MaxURLLen          = 2048
	DefaultMaxHosts    = 100000
	// ExcerptBytes is how much of each stream a result shows.
	ExcerptBytes = 4096
	// DryRunHostIDs bounds the host ids a dry run lists.
	DryRunHostIDs = 10000
)

func invalid(format string, a ...any) error {
	return apperr.New(apperr.CodeInvalidBody, fmt.Sprintf(format, a...))
}

// Normalize checks a request's shape and ranges and fills its defaults
// (400 invalid_body). The operation and the target are checked after it.
func Normalize(r Request, maxHosts int) (Request, error) {
	if utf8.RuneCountInString(r.Name) > MaxNameLen || !utf8.ValidString(r.Name) {
		return r, invalid("name must be at most %d characters", MaxNameLen)
	}
	n := 0
	if len(r.Target.HostIDs) > 0 {
		n++
	}
	if len(r.Target.Tags) > 0 {
		n++
	}
	if r.Target.FilterID != "" {
		n++
	}
	if n != 1 {
		return r, invalid("target must set exactly one of host_ids, tags and filter_id")
	}
	if len(r.Target.HostIDs) > maxHosts {
		return r, invalid("target matches more than %d hosts", maxHosts)
	}
	switch r.Offline {
	case "":
		r.Offline = OfflineSkip
	case OfflineSkip, OfflineQueue:
	default:
		return r, invalid("offline must be skip or queue")
	}
	if r.ExpiresInS == 0 {
		r.ExpiresInS = DefaultExpiresInS
	}
	if r.ExpiresInS < MinExpiresInS || r.ExpiresInS > MaxExpiresInS {
		return r, invalid("expires_in_s must be %d to %d", MinExpiresInS, MaxExpiresInS)
	}
	if r.Concurrency == 0 {
		r.Concurrency = DefaultConcurrency
	}
	if r.Concurrency < 1 || r.Concurrency > MaxConcurrency {
		return r, invalid("concurrency must be 1 to %d", MaxConcurrency)
	}
	if w := r.Waves; w != nil {
		if w.Size < 1 || w.Size > MaxWaveSize {
			return r, invalid("waves.size must be 1 to %d", MaxWaveSize)
		}
		if w.PauseS < 0 || w.PauseS > MaxPauseS {
			return r, invalid("waves.pause_s must be 0 to %d", MaxPauseS)
		}
		if p := w.StopIfFailedPct; p != nil && (*p < 0 || *p > 100) {
			return r, invalid("waves.stop_if_failed_pct must be 0 to 100")
		}
	}
	if err := checkURL(r.NotifyURL); err != nil {
		return r, err
	}
	return r, nil
}

// checkURL accepts "" or an absolute http(s) URL of at most MaxURLLen
// characters, as report URLs are checked; the delivery worker checks each
// resolved address when it connects.
func checkURL(raw string) error {
	if raw == "" {
		return nil
	}
	bad := invalid("notify_url must be an absolute http(s) URL of at most %d characters", MaxURLLen)
	if len(raw) > MaxURLLen || strings.ContainsAny(raw, " \t\r\n") {
		return bad
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil {
		return bad
	}
	return nil
}

// WaveOf is the wave of the run at index i (0-based, host order): i/size+1;
// every run is in wave 1 without waves.
func WaveOf(i int, w *Waves) int {
	if w == nil {
		return 1
	}
	return i/w.Size + 1
}

// WaveCount is how many waves n hosts make.
func WaveCount(n int, w *Waves) int {
	if w == nil || n == 0 {
		return 1
	}
	return (n + w.Size - 1) / w.Size
}

// OverThreshold reports whether the failed share of a job's finished runs
// (succeeded + failed) exceeds the waves' stop_if_failed_pct.
func OverThreshold(t Totals, w *Waves) bool {
	if w == nil || w.StopIfFailedPct == nil {
		return false
	}
	done := t.Succeeded + t.Failed
	if done == 0 {
		return false
	}
	return t.Failed*100 > *w.StopIfFailedPct*done
}

// WaveStep is what to do once every run of the current wave is final or
// waiting for its host.
type WaveStep int

// The wave steps.
const (
	WaveWait    WaveStep = iota // the pause is not over
	WaveRelease                 // release the next wave
	WaveStop                    // the failure threshold is passed: stop the job
	WaveLast                    // no wave follows
)

// NextWave decides, when the current wave is done (every run final or
// waiting), what happens next at now: stop over the threshold, else
// release the next wave when the pause since doneAt has passed.
func NextWave(j Job, doneAt, now time.Time) WaveStep {
	if OverThreshold(j.Totals, j.Spec.Waves) {
		return WaveStop
	}
	if j.Wave >= WaveCount(j.HostCount, j.Spec.Waves) {
		return WaveLast
	}
	pause := time.Duration(j.Spec.Waves.PauseS) * time.Second
	if now.Before(doneAt.Add(pause)) {
		return WaveWait
	}
	return WaveRelease
}

// Move counts one run moving from one state to another in t.
func (t *Totals) Move(from, to RunState, n int) {
	*t.at(from) -= n
	*t.at(to) += n
}

func (t *Totals) at(s RunState) *int {
	switch s {
	case RunQueued:
		return &t.Queued
	case RunRunning:
		return &t.Running
	case RunSucceeded:
		return &t.Succeeded
	case RunFailed:
		return &t.Failed
	case RunSkipped:
		return &t.Skipped
	case RunExpired:
		return &t.Expired
	default:
		return &t.Canceled
	}
}

// Active is how many runs are not over.
func (t Totals) Active() int { return t.Queued + t.Running }

// Finish ends j at now when nothing of it is queued or running: the state
// becomes finished (a canceled job stays canceled) and finished_at is set.
// It reports whether it ended the job.
func (j *Job) Finish(now time.Time) bool {
	if j.FinishedAt != nil || j.Totals.Active() > 0 {
		return false
	}
	if j.State == JobRunning {
		j.State = JobFinished
	}
	at := now.UTC()
	j.FinishedAt = &at
	return true
}

// Stop stops a running job for reason: no more runs start.
func (j *Job) Stop(reason string) {
	if j.StopReason == "" {
		j.StopReason = reason
	}
	if reason == StopCanceled {
		j.State = JobCanceled
	}
}

// Stopped reports whether no more runs of j may start.
func (j Job) Stopped() bool { return j.StopReason != "" || j.State != JobRunning }

// Excerpt is the first n bytes of s, cut back to a UTF-8 boundary, and
// whether anything was cut.
func Excerpt(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.ToValidUTF8(s[:cut], ""), true
}
