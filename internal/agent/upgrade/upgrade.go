// Package upgrade replaces the agent's own executable. It downloads a new
// build into the executable's directory, checks its size, SHA-256 and the
// version it reports, swaps it in by rename (keeping the running file as a
// backup) and puts the backup back when the new build is not accepted. It
// also keeps the pending-upgrade record in the state directory, which tells
// the next process (the new version after the restart, or the old one
// after a rollback or a crash) how the upgrade stands.
//
// Package agent drives it for the agent.upgrade operation; see the
// "Upgrades" section of docs/agent.md for the whole flow.
package upgrade

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"hostgate/internal/agentproto"
)

// MaxExeSize bounds exe_size_bytes. An agent build is tens of MiB; an
// announcement past this is a mistake, and the limit keeps a bad one from
// filling the disk.
const MaxExeSize = 512 << 20

// maxVersionLen bounds the version string, which ends up in file records,
// log lines and the probe's comparison.
const maxVersionLen = 64

// Check validates the arguments of agent.upgrade and returns them
// normalised (the SHA-256 in lower case). The error lists every problem,
// each prefixed with its field name.
func Check(u agentproto.Upgrade) (agentproto.Upgrade, error) {
	u.ExeSHA256 = strings.ToLower(u.ExeSHA256)
	var errs []error
	add := func(field string, err error) {
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", field, err))
		}
	}
	add("version", checkVersion(u.Version))
	add("exe_url", checkURL(u.ExeURL))
	add("exe_sha256", checkSHA256(u.ExeSHA256))
	add("exe_size_bytes", checkSize(u.ExeSize))
	if len(errs) > 0 {
		return agentproto.Upgrade{}, errors.Join(errs...)
	}
	return u, nil
}

// checkVersion allows what version strings are made of (1.2.3-rc.1+build):
// anything else, spaces in particular, would break the probe's comparison
// with the "hostgate-agent <version> ..." line.
func checkVersion(v string) error {
	switch {
	case v == "":
		return errors.New("required")
	case len(v) > maxVersionLen:
		return fmt.Errorf("longer than %d characters", maxVersionLen)
	}
	for _, r := range v {
		ok := r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || strings.ContainsRune(".-+_", r)
		if !ok {
			return errors.New("may only contain letters, digits and . - + _")
		}
	}
	return nil
}

func checkURL(s string) error {
	if s == "" {
		return errors.New("required")
	}
	u, err := url.Parse(s)
	if err != nil {
		return errors.New("not a URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("scheme %q is not http or https", u.Scheme)
	}
	if u.Host == "" {
		return errors.New("no host")
	}
	return nil
}

func checkSHA256(s string) error {
	if len(s) != 64 {
		return fmt.Errorf("%d characters, want 64 hexadecimal ones", len(s))
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return errors.New("not hexadecimal")
		}
	}
	return nil
}

func checkSize(n int64) error {
	switch {
	case n <= 0:
		return errors.New("must be positive")
	case n > MaxExeSize:
		return fmt.Errorf("%d is more than the %d bytes an agent executable may have", n, MaxExeSize)
	}
	return nil
}

// redactURL is u for messages: without user information or query, which
// may carry credentials (a signed download link).
func redactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(unparsable URL)"
	}
	p.User, p.RawQuery, p.ForceQuery, p.Fragment, p.RawFragment = nil, "", false, "", ""
	return p.String()
}
