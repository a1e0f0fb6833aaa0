package hub

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"syscall"

	"hostgate/internal/apperr"
	coordredis "hostgate/internal/coord/redis"
	"hostgate/internal/store"
	"hostgate/internal/store/postgres"
)

// SettingError is a failed start blamed on one setting: what went wrong
// and how to fix it, for one line of output. It never carries a secret.
type SettingError struct {
	Setting string // the environment variable, e.g. HOSTGATE_DATABASE_URL
	Problem string
	Fix     string
	Err     error // the cause, for errors.Is/As
}

func (e *SettingError) Error() string {
	s := e.Setting + ": " + e.Problem
	if e.Fix != "" {
		s += "; " + e.Fix
	}
	return s
}

func (e *SettingError) Unwrap() error { return e.Err }

// rootCause is the innermost error of err's chain, following the first
// of joined errors: for a failed dial, "connection refused" rather than
// every layer's prefix (and every address tried).
func rootCause(err error) error {
	for {
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			if u.Unwrap() == nil {
				return err
			}
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			if len(u.Unwrap()) == 0 {
				return err
			}
			err = u.Unwrap()[0]
		default:
			return err
		}
	}
}

// storeError names the setting behind a store that would not open.
func storeError(cfg Config, err error) error {
	if cfg.DatabaseURL == "" {
		return &SettingError{Setting: "HOSTGATE_DATA_DIR", Err: err,
			Problem: fmt.Sprintf("cannot keep the SQLite database in %q: %v", cfg.DataDir, err),
			Fix:     "make it a directory this user can write, or point HOSTGATE_DATA_DIR elsewhere"}
	}
	se := &SettingError{Setting: "HOSTGATE_DATABASE_URL", Err: err, Problem: err.Error(), Fix: "fix the URL"}
	var ce *postgres.ConnectError
	if !errors.As(err, &ce) {
		return se
	}
	switch {
	case errors.Is(err, postgres.ErrNoDatabase):
		se.Problem = fmt.Sprintf("database %q does not exist on %s", ce.Database, ce.Addr)
		se.Fix = fmt.Sprintf("create it (%s) or fix the URL", createdb(ce))
	case errors.Is(err, postgres.ErrAuth):
		se.Problem = fmt.Sprintf("PostgreSQL at %s refused user %q: %s", ce.Addr, ce.User, ce.Server)
		se.Fix = "fix the user or password in the URL"
	default:
		se.Problem = fmt.Sprintf("cannot connect to PostgreSQL at %s: %v", ce.Addr, rootCause(ce.Err))
		se.Fix = "start PostgreSQL there or fix the URL"
	}
	return se
}

// Migrate brings the configured store's schema up to date, for
// `hostgate migrate`; a store that will not open is a *SettingError, as
// at a start.
func Migrate(ctx context.Context, cfg Config, log *slog.Logger) error {
	if err := store.Migrate(ctx, cfg.DatabaseURL, cfg.DataDir, log); err != nil {
		return storeError(cfg, err)
	}
	return nil
}

// createdb is the command that creates ce's database.
func createdb(ce *postgres.ConnectError) string {
	host, port, _ := net.SplitHostPort(ce.Addr)
	cmd := "createdb -h " + host
	if port != "5432" {
		cmd += " -p " + port
	}
	return cmd + " -U " + ce.User + " " + ce.Database
}

func coordError(err error) error {
	se := &SettingError{Setting: "HOSTGATE_REDIS_URL", Err: err, Problem: err.Error(),
		Fix: "start Redis there or fix the URL (unset, one hub instance coordinates in process)"}
	var ue *coordredis.UnreachableError
	if errors.As(err, &ue) {
		se.Problem = fmt.Sprintf("cannot reach Redis at %s: %v", ue.Addr, rootCause(ue.Err))
	}
	return se
}

func adminError(err error) error {
	setting, fix := "HOSTGATE_ADMIN_PASSWORD", passwordRule
	if apperr.Code(err) == "invalid_username" {
		setting, fix = "HOSTGATE_ADMIN_USERNAME", "choose another name"
	}
	return &SettingError{Setting: setting, Problem: message(err), Fix: fix, Err: err}
}

const passwordRule = "choose one of 8 to 1024 bytes that is neither a well-known password nor the username"

// message is an apperr's display message, or the error's text.
func message(err error) string {
	if e, ok := errors.AsType[*apperr.Error](err); ok {
		return e.Message
	}
	return err.Error()
}

func listenError(addr string, err error) error {
	se := &SettingError{Setting: "HOSTGATE_ADDR", Err: err,
		Problem: fmt.Sprintf("cannot listen on %s: %v", addr, rootCause(err)),
		Fix:     "choose another address (HOSTGATE_ADDR=127.0.0.1:8081, say)"}
	if errors.Is(err, syscall.EADDRINUSE) {
		se.Fix = "stop what uses it (another hostgate?) or choose another address (HOSTGATE_ADDR=127.0.0.1:8081, say)"
	}
	return se
}

// Describe is err on one line, with every secret setting's value (and the
// password inside a URL) replaced by "xxxxx": what cmd/hostgate prints when
// a start fails.
func Describe(err error, getenv func(string) string) string {
	s := strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
	for _, o := range options {
		v := getenv(o.Name)
		if !o.Secret || v == "" {
			continue
		}
		for _, secret := range secretsIn(v) {
			if len(secret) >= 4 { // shorter, it would garble the words, and it is no real secret
				s = strings.ReplaceAll(s, secret, "xxxxx")
			}
		}
	}
	return s
}

// secretsIn is what of a secret setting's value must never be shown: a
// URL's password, raw and decoded, or else the whole value.
func secretsIn(v string) []string {
	if u, err := url.Parse(v); err == nil && u.Scheme != "" && u.Host != "" {
		if pw, ok := u.User.Password(); ok && pw != "" {
			raw := v[strings.Index(v, "://")+3:]
			raw = raw[strings.Index(raw, ":")+1 : strings.LastIndex(raw, "@")]
			return []string{raw, pw}
		}
		return nil
	}
	if i := strings.Index(v, "://"); i >= 0 {
		// An unparsable URL: hide everything after the scheme.
		return []string{v[i+3:]}
	}
	// A list (accepted keys): each entry too, in case one is quoted alone.
	return append([]string{v}, strings.Split(v, ",")...)
}

// announce prints where the hub listens and, on a new installation, how
// to create the first admin: for a person reading the terminal, beside the
// structured log.
func (h *Hub) announce(ctx context.Context, w io.Writer, ln net.Listener) {
	if w == nil {
		return
	}
	scheme := "http"
	if h.cfg.TLSCert != "" {
		scheme = "https"
	}
	where, note := scheme+"://"+ln.Addr().String(), ""
	if a, ok := ln.Addr().(*net.TCPAddr); ok && a.IP.IsUnspecified() {
		where, note = fmt.Sprintf("%s://localhost:%d", scheme, a.Port), "all interfaces; "
	}
	fmt.Fprintf(w, "hostgate: listening on %s (%spublic URL %s)\n", where, note, h.cfg.PublicURL)
	if found, err := h.Admins.AnyAdmin(ctx); err == nil && !found {
		fmt.Fprintln(w, "hostgate: no admin yet: run hostgate admin create --username admin --password 'CHOOSE-A-PASSWORD' --role owner"+
			" (with this environment), or set HOSTGATE_ADMIN_USERNAME and HOSTGATE_ADMIN_PASSWORD and restart")
	}
}
