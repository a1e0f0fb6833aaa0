// Package l1report is L1 reverse reporting: the agent tells its host's
// report_url about events (online, settings, control) in an L1-encrypted
// report (l1.Codec.EncodeReport). Sending is best effort: reports wait in
// a small queue, each is tried a bounded number of times with a timeout,
// and a full queue drops the new report rather than block its caller.
// docs/l1.md ("Reverse reporting") describes what is sent.
package l1report

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"hostgate/internal/l1"
)

// Events.
const (
	EventOnline   = "online"    // the agent was welcomed by the hub
	EventSettings = "settings"  // the agent restarted with new L1 settings
	EventControl  = "control"   // a local L1 control was carried out (or failed)
	EventWatch    = "watch"     // entries of the watched directory changed
	EventWatchDir = "watch_dir" // the watched directory was changed (CHANGE_WATCH_DIR)
)

// Defaults of Config.
const (
	DefaultTimeout   = 5 * time.Second
	DefaultQueue     = 32
	DefaultAttempts  = 3
	DefaultRetryBase = 2 * time.Second
)

// Config is what a Reporter needs. Codec and URL are required.
type Config struct {
	Codec *l1.Codec // this host's bid and secret key
	URL   string    // the host's report_url (http or https)
	// Client sends the reports; nil means a client with Timeout.
	Client *http.Client
	// Timeout bounds one attempt (default 5 s).
	Timeout time.Duration
	// Attempts is how often a report is tried (default 3); RetryBase the
	// wait after the first failure, doubled after each (default 2 s).
	Attempts  int
	RetryBase time.Duration
	// Queue is how many reports may wait (default 32).
	Queue int
	Log   *slog.Logger // nil discards
}

// Reporter sends reports in the background while Run runs.
type Reporter struct {
	cfg    Config
	target string // URL with bid added to its query
	logURL string // scheme://host/path, for logs
	q      chan l1.Report
	log    *slog.Logger
}

// New checks cfg and returns a reporter.
func New(cfg Config) (*Reporter, error) {
	if cfg.Codec == nil {
		return nil, errors.New("l1report: no codec")
	}
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("l1report: report URL is not an http(s) URL")
	}
	q := u.Query()
	q.Set("bid", strconv.FormatInt(cfg.Codec.BID(), 10))
	u.RawQuery = q.Encode()
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Attempts <= 0 {
		cfg.Attempts = DefaultAttempts
	}
	if cfg.RetryBase <= 0 {
		cfg.RetryBase = DefaultRetryBase
	}
	if cfg.Queue <= 0 {
		cfg.Queue = DefaultQueue
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: cfg.Timeout}
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	logURL := (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
	return &Reporter{cfg: cfg, target: u.String(), logURL: logURL, q: make(chan l1.Report, cfg.Queue), log: log}, nil
}

// Report queues event with detail (marshalled to JSON; nil for none). It
// never blocks: when the queue is full the report is dropped and logged.
func (r *Reporter) Report(event string, detail any) {
	var raw json.RawMessage
	if detail != nil {
		b, err := json.Marshal(detail)
		if err != nil {
			r.log.Warn("L1 report not encodable", "event", event, "err", err)
			return
		}
		raw = b
	}
	select {
	case r.q <- l1.NewReport(event, raw, time.Now()):
	default:
		r.log.Warn("L1 report dropped: queue full", "event", event)
	}
}

// Run sends queued reports, one at a time in order, until ctx ends;
// reports still queued then are dropped.
func (r *Reporter) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case rep := <-r.q:
			r.deliver(ctx, rep)
		}
	}
}

// deliver tries rep up to Attempts times. Retries keep the nonce and ts,
// so that a receiver that got an earlier copy can drop this one.
func (r *Reporter) deliver(ctx context.Context, rep l1.Report) {
	body, err := r.cfg.Codec.EncodeReport(rep)
	if err != nil {
		r.log.Warn("L1 report not encodable", "event", rep.Event, "err", err)
		return
	}
	wait := r.cfg.RetryBase
	for attempt := 1; ; attempt++ {
		err := r.post(ctx, body)
		if err == nil {
			r.log.Debug("L1 report sent", "event", rep.Event, "url", r.logURL, "attempt", attempt)
			return
		}
		if attempt >= r.cfg.Attempts || ctx.Err() != nil {
			r.log.Info("L1 report not delivered", "event", rep.Event, "url", r.logURL, "attempts", attempt, "err", err)
			return
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		wait *= 2
	}
}

// post sends one attempt; a 2xx answer is a delivery.
func (r *Reporter) post(ctx context.Context, body string) error {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.target, bytes.NewReader([]byte(body)))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "text/plain")
	resp, err := r.cfg.Client.Do(req)
	if err != nil {
		// A *url.Error's text carries the URL, which may hold a token in
		// its query: keep only the cause.
		if ctx.Err() != nil {
			return fmt.Errorf("timed out after %s", r.cfg.Timeout)
		}
		if ue, ok := errors.AsType[*url.Error](err); ok {
			return ue.Err
		}
		return errors.New("request failed")
	}
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}
