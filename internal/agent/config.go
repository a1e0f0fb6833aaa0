package agent

import (
	"cmp"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"hostgate/internal/agent/upgrade"
	"hostgate/internal/agentproto"
)

// Config is the agent's setup: the install credentials the hub issued for
// this host, where to keep state, and tuning knobs that tests shorten.
// The zero value of every tuning field means "the documented default".
//
// Config carries secrets (SecretKey, InstallToken, AgentPrivkeySeed); its
// String and LogValue methods redact them, so logging a Config is safe.
type Config struct {
	HostID           string // UUID of the host
	BID              int64  // business id of the host (L1); its local L1 listener needs it > 0
	SecretKey        string // host secret: the L1 key (32 characters); never sent or logged
	ReportURL        string // L1 reverse reporting target (http or https); "" for none
	InstallToken     string // one-time token; optional once the state dir holds a token
	AgentPrivkeySeed string // base64 of the 32-byte ed25519 seed
	// AgentPrivkeySealed is the seed sealed to this machine (base64),
	// used when AgentPrivkeySeed is empty; KeyProtection names how it
	// was sealed (KeyProtectionDPAPI). See keyprotect.go.
	AgentPrivkeySealed string
	KeyProtection      string
	AgentPubkey        string // "ed25519:<base64>" or bare base64; must match the seed
	WSURL              string // ws:// or wss:// URL of the agent WebSocket
	APIEndpoint        string // http:// or https:// base of the hub API
	StateDir           string // defaults to DefaultStateDir()

	// ListenPort is the host's listen_port (install credentials): the
	// local L1 listener's port on 127.0.0.1 when L1Listen is ""; 0 means
	// the spec's default, 23456.
	ListenPort int
	// L1Listen is the full address of the local L1 listener (docs/l1.md),
	// for listening elsewhere than loopback: "" means 127.0.0.1:ListenPort,
	// "off" disables it. It also stays off while BID or SecretKey cannot
	// make an L1 codec.
	L1Listen string
	// SettingsFile is the JSON setup file the agent was started with
	// (--config); settings.update rewrites its bid, secret_key and
	// report_url. "" means the agent keeps them in settings.json in the
	// state directory, which then overrides BID, SecretKey and ReportURL
	// at start.
	SettingsFile string
	// SetupFile is the JSON setup file the credentials were read from
	// (--config): at start the agent seals a plaintext seed found there
	// with KeySealer and removes the plaintext (key protection), and on
	// Unix makes the file owner-only. "" leaves files alone.
	SetupFile string
	// KeySealer seals the seed to this machine; nil means
	// DefaultKeySealer() (DPAPI on Windows, none elsewhere).
	KeySealer KeySealer

	// AgentVersion is reported in hello and heartbeats; defaults to Version.
	AgentVersion string

	// HeartbeatOverride replaces the hub's welcome.heartbeat_s (and the
	// fallback heartbeat interval) when positive; the agent then drops a
	// connection it has heard nothing on for three of these intervals. No
	// config file sets it; the agent process takes it from HeartbeatEnv
	// (ParseHeartbeat). A real hub answers a heartbeat without an id only
	// after 40 s of its own quiet (docs/agent-protocol.md), so while the
	// override is below heartbeat_s every heartbeat carries an id, which
	// the hub always answers: a quiet hub is not taken for a dead one.
	HeartbeatOverride time.Duration
	// MetricsOverride replaces the hub's welcome.metrics_s when positive.
	MetricsOverride time.Duration
	// BackoffBase and BackoffCap bound reconnect delays (defaults 1 s, 60 s).
	BackoffBase time.Duration
	BackoffCap  time.Duration
	// BackoffReset is how long a session must last to reset the backoff
	// (default 60 s).
	BackoffReset time.Duration
	// WelcomeTimeout bounds the wait for welcome after hello (default 10 s).
	WelcomeTimeout time.Duration
	// HTTPTimeout bounds one enrolment or heartbeat request (default 30 s).
	HTTPTimeout time.Duration

	// Executable is the agent's executable, which agent.upgrade replaces;
	// default os.Executable() with symbolic links resolved. When it cannot
	// be found, upgrades are refused.
	Executable string
	// MaxTerminals caps the terminal sessions open at once (default
	// pty.DefaultMaxSessions, 16); a stream beyond it is closed with the
	// reason.
	MaxTerminals int

	// UpgradeConfirmTimeout is how long a newly upgraded agent waits for
	// the hub's welcome before it puts the previous executable back and
	// restarts into it (default 3 min).
	UpgradeConfirmTimeout time.Duration

	// Commands are the operations the agent serves; nil means
	// DefaultRegistry (every operation of this build).
	Commands *Registry
	// Sampler produces the metrics samples; nil means the process's
	// shared sysops sampler.
	Sampler Sampler
	// OnStatus, when set, is called after every connection state change.
	// It runs on the agent's goroutines and must not block.
	OnStatus func(Status)

	// probe checks a downloaded executable before the swap; nil means
	// upgrade.Probe, which runs it. Tests whose "executable" is not a
	// program set it. The size and SHA-256 checks do not depend on it.
	probe func(ctx context.Context, exe, version string) error
	// l1ReportRetry, when positive, replaces the reporter's first retry
	// wait (tests).
	l1ReportRetry time.Duration
	// watchPoll, when positive, replaces DefaultWatchPoll (tests).
	watchPoll time.Duration
}

// ConfigFrom is the configuration of the agent setup s (its setup file,
// the --config format): every setting of s, and the defaults of the
// tuning fields.
func ConfigFrom(s agentproto.Setup) Config {
	return Config{
		HostID: s.HostID, BID: s.BID, SecretKey: s.SecretKey, InstallToken: s.InstallToken,
		AgentPrivkeySeed: s.AgentPrivkeySeed, AgentPubkey: s.AgentPubkey,
		AgentPrivkeySealed: s.AgentPrivkeySealed, KeyProtection: s.KeyProtection,
		WSURL: s.WSURL, APIEndpoint: s.APIEndpoint, StateDir: s.StateDir,
		ReportURL: s.ReportURL, ListenPort: s.ListenPort, L1Listen: s.L1Listen,
		UpgradeConfirmTimeout: time.Duration(s.UpgradeConfirmTimeout),
	}
}

// Defaults of the tuning fields.
const (
	DefaultHeartbeat      = 25 * time.Second
	DefaultMetrics        = 60 * time.Second
	DefaultBackoffBase    = time.Second
	DefaultBackoffCap     = 60 * time.Second
	DefaultBackoffReset   = 60 * time.Second
	DefaultWelcomeTimeout = 10 * time.Second
	DefaultHTTPTimeout    = 30 * time.Second

	DefaultUpgradeConfirmTimeout = 3 * time.Minute

	// HeartbeatEnv names the environment variable that sets the agent
	// process's HeartbeatOverride (a Go duration, MinHeartbeat to
	// MaxHeartbeat); unset keeps the hub's interval.
	HeartbeatEnv = "HOSTGATE_AGENT_HEARTBEAT"
	// MinHeartbeat and MaxHeartbeat bound HeartbeatEnv: below a second
	// the hub would answer a heartbeat a second for nothing; above the
	// hub's own interval (DefaultHeartbeat) the hub, which waits three of
	// its intervals, would close a healthy socket as silent.
	MinHeartbeat = time.Second
	MaxHeartbeat = DefaultHeartbeat

	// DefaultListenPort is the spec's default listen_port.
	DefaultListenPort = 23456
	// DefaultL1Listen is the local L1 listener's address without a
	// ListenPort: loopback, the default listen_port.
	DefaultL1Listen = "127.0.0.1:23456"
	// L1ListenOff as L1Listen disables the local L1 listener.
	L1ListenOff = "off"
)

// ErrInvalidConfig wraps every configuration error, so a caller can tell a
// usage problem from a runtime failure.
var ErrInvalidConfig = errors.New("invalid agent configuration")

// String describes the config without its secrets.
func (c Config) String() string {
	return fmt.Sprintf("agent.Config{host_id=%s bid=%d ws_url=%s api_endpoint=%s state_dir=%s l1_listen=%s install_token=%s secret_key=%s agent_privkey_seed=%s}",
		c.HostID, c.BID, c.WSURL, c.APIEndpoint, c.StateDir, c.L1Listen, redacted(c.InstallToken), redacted(c.SecretKey), redacted(c.AgentPrivkeySeed))
}

// GoString is String, so %#v does not print secrets either.
func (c Config) GoString() string { return c.String() }

// LogValue renders the config for slog without its secrets.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("host_id", c.HostID),
		slog.Int64("bid", c.BID),
		slog.String("ws_url", c.WSURL),
		slog.String("api_endpoint", c.APIEndpoint),
		slog.String("state_dir", c.StateDir),
		slog.String("l1_listen", c.L1Listen),
		slog.Bool("install_token_set", c.InstallToken != ""),
	)
}

func redacted(s string) string {
	if s == "" {
		return "unset"
	}
	return "[redacted]"
}

// settings is a validated Config with everything parsed.
type settings struct {
	Config
	hostID  string
	key     ed25519.PrivateKey
	pubB64  string // canonical std base64 of the public key
	apiBase string // api endpoint without a trailing slash
	apiURL  *url.URL
	wsURL   *url.URL
}

// Validate checks the config and reports every problem it finds, wrapped
// in ErrInvalidConfig.
func (c Config) Validate() error {
	_, err := c.settings()
	return err
}

func (c Config) settings() (*settings, error) {
	s := &settings{Config: c}
	s.fillDefaults()
	var errs []error
	add := func(field string, err error) {
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", field, err))
		}
	}
	var err error
	s.hostID, err = parseHostID(c.HostID)
	add("host_id", err)
	if c.AgentPrivkeySeed == "" && c.AgentPrivkeySealed != "" {
		var seed string
		if seed, err = c.unsealSeed(s.hostID); err == nil {
			s.key, err = parseSeed(seed)
		}
		add("agent_privkey_sealed", err)
	} else {
		s.key, err = parseSeed(c.AgentPrivkeySeed)
		add("agent_privkey_seed", err)
	}
	if s.key != nil {
		s.pubB64, err = matchPubkey(c.AgentPubkey, s.key)
		add("agent_pubkey", err)
	}
	s.wsURL, err = parseURL(c.WSURL, "ws", "wss")
	add("ws_url", err)
	s.apiURL, err = parseURL(c.APIEndpoint, "http", "https")
	if err == nil && (s.apiURL.RawQuery != "" || s.apiURL.Fragment != "") {
		err = errors.New("must not have a query or fragment")
	}
	add("api_endpoint", err)
	if s.apiURL != nil {
		s.apiBase = strings.TrimRight(s.apiURL.String(), "/")
	}
	add("tuning", c.checkDurations())
	if c.BID < 0 {
		add("bid", errors.New("must not be negative"))
	}
	if c.ReportURL != "" {
		_, err = parseURL(c.ReportURL, "http", "https")
		add("report_url", err)
	}
	if s.ListenPort < 0 || s.ListenPort > 65535 {
		add("listen_port", errors.New("must be a TCP port, 1 to 65535"))
	}
	if s.L1Listen != L1ListenOff {
		if _, _, err := net.SplitHostPort(s.L1Listen); err != nil {
			add("l1_listen", errors.New(`must be host:port or "off"`))
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, errors.Join(errs...))
	}
	return s, nil
}

func (s *settings) fillDefaults() {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&s.BackoffBase, DefaultBackoffBase)
	def(&s.BackoffCap, DefaultBackoffCap)
	def(&s.BackoffReset, DefaultBackoffReset)
	def(&s.WelcomeTimeout, DefaultWelcomeTimeout)
	def(&s.HTTPTimeout, DefaultHTTPTimeout)
	def(&s.UpgradeConfirmTimeout, DefaultUpgradeConfirmTimeout)
	if s.AgentVersion == "" {
		s.AgentVersion = Version
	}
	if s.StateDir == "" {
		s.StateDir = DefaultStateDir()
	}
	if s.L1Listen == "" {
		s.L1Listen = net.JoinHostPort("127.0.0.1", strconv.Itoa(cmp.Or(s.ListenPort, DefaultListenPort)))
	}
	s.Executable = executable(s.Executable)
	if s.probe == nil {
		s.probe = upgrade.Probe
	}
}

// executable is the absolute path of exe, or of the running executable
// when exe is empty; "" when that cannot be found. Links are resolved so
// that an upgrade replaces the file, not a link to it.
func executable(exe string) string {
	var err error
	if exe == "" {
		if exe, err = os.Executable(); err == nil {
			exe, err = filepath.EvalSymlinks(exe)
		}
	}
	if err == nil {
		exe, err = filepath.Abs(exe)
	}
	if err != nil {
		return ""
	}
	return exe
}

// ParseHeartbeat reads HeartbeatEnv's value: a Go duration from
// MinHeartbeat to MaxHeartbeat; "" is 0 (the hub's interval).
func ParseHeartbeat(v string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", HeartbeatEnv, err)
	}
	if d < MinHeartbeat || d > MaxHeartbeat {
		return 0, fmt.Errorf("%s: %v is outside %v to %v", HeartbeatEnv, d, MinHeartbeat, MaxHeartbeat)
	}
	return d, nil
}

func (c Config) checkDurations() error {
	for _, d := range []time.Duration{c.HeartbeatOverride, c.MetricsOverride, c.BackoffBase, c.BackoffCap,
		c.BackoffReset, c.WelcomeTimeout, c.HTTPTimeout, c.UpgradeConfirmTimeout} {
		if d < 0 {
			return errors.New("durations must not be negative")
		}
	}
	if c.BackoffBase > 0 && c.BackoffCap > 0 && c.BackoffCap < c.BackoffBase {
		return errors.New("backoff cap is below the backoff base")
	}
	return nil
}

func parseHostID(s string) (string, error) {
	if s == "" {
		return "", errors.New("required")
	}
	u, err := uuid.Parse(s)
	if err != nil {
		return "", errors.New("not a UUID")
	}
	return u.String(), nil
}

// decodeBase64 accepts standard or URL-safe base64, padded or not.
func decodeBase64(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, errors.New("not base64")
}

// parseSeed never echoes the seed in its errors.
func parseSeed(s string) (ed25519.PrivateKey, error) {
	if s == "" {
		return nil, errors.New("required")
	}
	b, err := decodeBase64(s)
	if err != nil {
		return nil, err
	}
	if len(b) != ed25519.SeedSize {
		return nil, fmt.Errorf("decodes to %d bytes, want %d", len(b), ed25519.SeedSize)
	}
	return ed25519.NewKeyFromSeed(b), nil
}

func matchPubkey(s string, key ed25519.PrivateKey) (string, error) {
	if s == "" {
		return "", errors.New("required")
	}
	b, err := decodeBase64(strings.TrimPrefix(strings.TrimSpace(s), "ed25519:"))
	if err != nil {
		return "", err
	}
	pub := key.Public().(ed25519.PublicKey)
	if len(b) != ed25519.PublicKeySize || !pub.Equal(ed25519.PublicKey(b)) {
		return "", errors.New("does not match agent_privkey_seed")
	}
	return base64.StdEncoding.EncodeToString(pub), nil
}

func parseURL(s string, schemes ...string) (*url.URL, error) {
	if s == "" {
		return nil, errors.New("required")
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, errors.New("not a URL")
	}
	ok := false
	for _, sc := range schemes {
		ok = ok || strings.EqualFold(u.Scheme, sc)
	}
	if !ok {
		return nil, fmt.Errorf("scheme %q is not %s", u.Scheme, strings.Join(schemes, " or "))
	}
	if u.Host == "" {
		return nil, errors.New("no host")
	}
	if u.User != nil {
		return nil, errors.New("must not carry user info")
	}
	return u, nil
}

// insecure reports whether u is unencrypted and not on loopback.
func insecure(u *url.URL) bool {
	if u.Scheme == "wss" || u.Scheme == "https" {
		return false
	}
	h := u.Hostname()
	ip := net.ParseIP(h)
	return !(h == "localhost" || (ip != nil && ip.IsLoopback()))
}
