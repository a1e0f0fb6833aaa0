// Package hub assembles the hub: it reads the configuration, opens the
// store and coordination, builds the services and the HTTP server, runs the
// background work and shuts it all down. cmd/hostgate and the tests use it.
package hub

import (
	"encoding/base64"
	"fmt"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"hostgate/internal/admin"
	"hostgate/internal/billing"
	"hostgate/internal/httpapi"
	"hostgate/internal/keyring"
	"hostgate/internal/passwords"
	"hostgate/internal/payments"
)

// Config is the hub's configuration, read once from the environment.
type Config struct {
	Addr          string
	DataDir       string
	PublicURL     *url.URL
	DatabaseURL   string
	RedisURL      string
	RedisPrefix   string
	AdminUsername string
	AdminPassword string
	SigningKey    string
	SealingKey    string
	// SigningKeysAccepted and SealingKeysAccepted are older (or coming)
	// keys, verify-only and open-only: key rotation.
	SigningKeysAccepted [][]byte
	SealingKeysAccepted [][]byte
	TrustedProxies      []netip.Prefix
	// AllowedOrigins are browser origins, besides the public URL's own,
	// whose pages may open terminal WebSockets.
	AllowedOrigins []string
	TLSCert        string
	TLSKey         string
	LogLevel       string
	LogFormat      string
	ShutdownGrace  time.Duration

	InstallTokenTTL time.Duration
	ExeURL          string
	ExeSHA256       string
	// AgentDir, when set, replaces the agent binaries built into the hub
	// (package agentdist) with those in this directory.
	AgentDir             string
	HandshakeConcurrency int
	HandshakeRate        float64
	L1RatePerMin         int // POST /gateway requests per source address per minute
	// InstallRatePerMin bounds the one-line installer fetches (GET
	// /install/…) per source address per minute.
	InstallRatePerMin int
	// MetricsAddr is where /metrics is served, apart from the API; "" is off.
	MetricsAddr string

	// PaymentDummy enables the dummy payment provider (development, tests).
	PaymentDummy bool
	// EPay is the fourthparty merchant account (all three set, or none).
	EPay payments.EPay

	// WebhookAllowPrivate lets webhook targets be private, loopback or
	// link-local addresses (development and tests).
	WebhookAllowPrivate bool
	// WebhookScheduleScale multiplies the webhook retry delays. Test-only.
	WebhookScheduleScale float64
	// JobMaxHosts bounds the hosts of one job (HOSTGATE_JOB_MAX_HOSTS).
	JobMaxHosts int
	// JobOutputTTL is how long a job run's whole output is kept.
	JobOutputTTL time.Duration
	// JobExpiryScale multiplies jobs' expires_in_s. Test-only.
	JobExpiryScale float64
	// ScheduleInterval is how often an instance looks for due schedules.
	ScheduleInterval time.Duration
	// TerminalTicketTTL is how long a terminal ticket may wait to be
	// used; zero is terminals.TicketTTL. Test-only and not in the
	// environment: hubtest shortens it to see a ticket expire.
	TerminalTicketTTL time.Duration

	// BillingMode ("free", "charging" or "" for the default) is the
	// billing mode of a new installation; an existing one keeps its own.
	BillingMode string

	// RateLimits are the abuse limits of the credential, ticket and
	// payment routes (HOSTGATE_RATE_*); the hub adds the counter.
	RateLimits httpapi.RateLimits
	// HeaderTimeout and BodyTimeout bound how long a client may take to
	// send a request's headers, and then its body.
	HeaderTimeout time.Duration
	BodyTimeout   time.Duration
}

// option is one environment variable: the table drives parsing, --help and
// docs/configuration.md (a test keeps that file in step).
type option struct {
	Name, Default, Doc string
	Secret             bool
	set                func(*Config, string) error
}

var options = []option{
	{Name: "HOSTGATE_ADDR", Default: ":8080", Doc: "Listen address of the HTTP server.",
		set: func(c *Config, v string) error { c.Addr = v; return nil }},
	{Name: "HOSTGATE_DATA_DIR", Default: "./data", Doc: "Directory for the embedded SQLite database (created 0700).",
		set: func(c *Config, v string) error { c.DataDir = v; return nil }},
	{Name: "HOSTGATE_PUBLIC_URL", Default: "http://localhost:8080", Doc: "External base address clients and agents use (https in production).",
		set: setPublicURL},
	{Name: "HOSTGATE_DATABASE_URL", Secret: true, Doc: "postgres://… selects PostgreSQL; unset selects SQLite in the data directory.",
		set: func(c *Config, v string) error {
			if v != "" && !strings.HasPrefix(v, "postgres://") && !strings.HasPrefix(v, "postgresql://") {
				return fmt.Errorf("must be a postgres:// URL or unset")
			}
			c.DatabaseURL = v
			return nil
		}},
	{Name: "HOSTGATE_REDIS_URL", Secret: true, Doc: "redis://… selects Redis; unset selects in-process coordination (one hub instance only).",
		set: func(c *Config, v string) error {
			if v != "" && !strings.HasPrefix(v, "redis://") && !strings.HasPrefix(v, "rediss://") {
				return fmt.Errorf("must be a redis:// or rediss:// URL or unset")
			}
			c.RedisURL = v
			return nil
		}},
	{Name: "HOSTGATE_REDIS_PREFIX", Default: "hostgate:", Doc: "Prefix of every Redis key, so deployments can share one Redis.",
		set: func(c *Config, v string) error { c.RedisPrefix = v; return nil }},
	{Name: "HOSTGATE_ADMIN_USERNAME", Doc: "With HOSTGATE_ADMIN_PASSWORD: at start, create an owner admin of this name unless one exists.",
		set: func(c *Config, v string) error { c.AdminUsername = v; return nil }},
	{Name: "HOSTGATE_ADMIN_PASSWORD", Secret: true, Doc: "Password of that owner admin (only used when creating it).",
		set: func(c *Config, v string) error { c.AdminPassword = v; return nil }},
	{Name: "HOSTGATE_SIGNING_KEY", Secret: true, Doc: "Base64 of 32 bytes signing access tokens; unset: generated once and kept in the database.",
		set: func(c *Config, v string) error { return setKey(&c.SigningKey, v) }},
	{Name: "HOSTGATE_SEALING_KEY", Secret: true, Doc: "Base64 of 32 bytes sealing stored secrets (AES-256-GCM); unset: generated once and kept in the database.",
		set: func(c *Config, v string) error { return setKey(&c.SealingKey, v) }},
	{Name: "HOSTGATE_SIGNING_KEYS_ACCEPTED", Secret: true, Doc: "Comma-separated base64 32-byte keys whose tokens are also accepted (verify only): key rotation, docs/operations-guide.md.",
		set: func(c *Config, v string) error { return setKeys(&c.SigningKeysAccepted, v) }},
	{Name: "HOSTGATE_SEALING_KEYS_ACCEPTED", Secret: true, Doc: "Comma-separated base64 32-byte keys whose sealed values are also opened (never used to seal): key rotation, then hostgate keys reseal.",
		set: func(c *Config, v string) error { return setKeys(&c.SealingKeysAccepted, v) }},
	{Name: "HOSTGATE_TRUSTED_PROXIES", Doc: "Comma-separated CIDRs whose X-Forwarded-For / X-Forwarded-Proto are believed.",
		set: setProxies},
	{Name: "HOSTGATE_ALLOWED_ORIGINS", Doc: "Comma-separated browser origins (https://console.example.com) that may open terminal WebSockets and send cookie-authenticated changes, besides the public URL's own.",
		set: setOrigins},
	{Name: "HOSTGATE_TLS_CERT", Doc: "PEM certificate file; with HOSTGATE_TLS_KEY the hub serves HTTPS itself.",
		set: func(c *Config, v string) error { c.TLSCert = v; return nil }},
	{Name: "HOSTGATE_TLS_KEY", Doc: "PEM private key file for HOSTGATE_TLS_CERT.",
		set: func(c *Config, v string) error { c.TLSKey = v; return nil }},
	{Name: "HOSTGATE_LOG_LEVEL", Default: "info", Doc: "debug, info, warn or error.",
		set: func(c *Config, v string) error { return oneOf(&c.LogLevel, v, "debug", "info", "warn", "error") }},
	{Name: "HOSTGATE_LOG_FORMAT", Default: "json", Doc: "json or text.",
		set: func(c *Config, v string) error { return oneOf(&c.LogFormat, v, "json", "text") }},
	{Name: "HOSTGATE_SHUTDOWN_GRACE", Default: "15s", Doc: "How long a stopping hub lets requests in flight finish.",
		set: func(c *Config, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				return fmt.Errorf("must be a duration such as 15s")
			}
			c.ShutdownGrace = d
			return nil
		}},
	{Name: "INSTALL_TOKEN_TTL", Default: "900", Doc: "Lifetime of an install token in seconds (spec section 8).",
		set: func(c *Config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 30 || n > 7*24*3600 {
				return fmt.Errorf("must be seconds between 30 and 604800")
			}
			c.InstallTokenTTL = time.Duration(n) * time.Second
			return nil
		}},
	{Name: "GATEWAY_EXE_URL", Doc: "Download address of the agent executable, handed out in install credentials; unset: the hub's own /download/hostgate-agent-windows-amd64.exe.",
		set: func(c *Config, v string) error { c.ExeURL = v; return nil }},
	{Name: "GATEWAY_EXE_SHA256", Doc: "SHA-256 (64 hex characters) of that executable; set with GATEWAY_EXE_URL.",
		set: func(c *Config, v string) error {
			if v != "" && !sha256RE.MatchString(v) {
				return fmt.Errorf("must be 64 hexadecimal characters")
			}
			c.ExeSHA256 = strings.ToLower(v)
			return nil
		}},
	{Name: "HOSTGATE_AGENT_DIR", Doc: "Directory of agent binaries (hostgate-agent-<os>-<arch>[.exe], optional VERSION) served at /download/ instead of those built into the hub.",
		set: func(c *Config, v string) error { c.AgentDir = v; return nil }},
	{Name: "HOSTGATE_PAYMENT_DUMMY", Default: "0", Doc: "1 enables the dummy payment provider, whose unsigned notifications and checkout page credit orders: development and tests only.",
		set: func(c *Config, v string) error {
			switch v {
			case "0", "":
				c.PaymentDummy = false
			case "1":
				c.PaymentDummy = true
			default:
				return fmt.Errorf("must be 0 or 1")
			}
			return nil
		}},
	{Name: "HOSTGATE_WEBHOOK_ALLOW_PRIVATE", Default: "0", Doc: "1 lets webhook report URLs name private, loopback and link-local addresses (SSRF protection off): development and tests only.",
		set: func(c *Config, v string) error { return zeroOrOne(&c.WebhookAllowPrivate, v) }},
	{Name: "HOSTGATE_WEBHOOK_SCHEDULE_SCALE", Default: "1", Doc: "TEST-ONLY: multiplies every webhook retry delay (e.g. 0.0001); production leaves it at 1.",
		set: func(c *Config, v string) error {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f <= 0 || f > 1 {
				return fmt.Errorf("must be a number above 0 and at most 1")
			}
			c.WebhookScheduleScale = f
			return nil
		}},
	{Name: "HOSTGATE_EPAY_URL", Doc: "Base address of the fourthparty (EPay-style) payment gateway; customers pay at <url>/submit.php.",
		set: func(c *Config, v string) error {
			if v != "" {
				if u, err := url.Parse(v); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
					return fmt.Errorf("must be an http(s) URL")
				}
			}
			c.EPay.GatewayURL = v
			return nil
		}},
	{Name: "HOSTGATE_EPAY_PID", Doc: "Merchant id at that gateway.",
		set: func(c *Config, v string) error { c.EPay.PID = v; return nil }},
	{Name: "HOSTGATE_EPAY_KEY", Secret: true, Doc: "Merchant key that signs gateway requests and notifications.",
		set: func(c *Config, v string) error { c.EPay.Key = v; return nil }},
	{Name: "HOSTGATE_AGENT_HANDSHAKE_CONCURRENCY", Default: "64", Doc: "Agent WebSocket handshakes admitted at once; more are shed with 503 and Retry-After.",
		set: func(c *Config, v string) error { return positiveInt(&c.HandshakeConcurrency, v) }},
	{Name: "HOSTGATE_AGENT_HANDSHAKE_RATE", Default: "500", Doc: "Agent handshakes admitted per second on average (burst: the same number).",
		set: func(c *Config, v string) error {
			var n int
			err := positiveInt(&n, v)
			c.HandshakeRate = float64(n)
			return err
		}},
	{Name: "HOSTGATE_METRICS_ADDR", Doc: "Listen address of the Prometheus /metrics endpoint (e.g. 127.0.0.1:9090); unset serves no metrics. Keep it off the public network.",
		set: func(c *Config, v string) error { c.MetricsAddr = v; return nil }},
	{Name: "HOSTGATE_BILLING_MODE", Doc: "free or charging: the billing mode of a new installation (free: run your own fleet without charging). Once a mode is set the store's wins; an owner changes it with step-up.",
		set: func(c *Config, v string) error {
			if v == "" {
				return nil
			}
			return oneOf(&c.BillingMode, v, billing.ModeFree, billing.ModeCharging)
		}},
	{Name: "HOSTGATE_L1_RATE_PER_MIN", Default: "60", Doc: "POST /gateway requests one source address may send per minute (fixed window, shared by all hub instances); more get 429.",
		set: func(c *Config, v string) error { return positiveInt(&c.L1RatePerMin, v) }},
	{Name: "HOSTGATE_JOB_MAX_HOSTS", Default: "100000", Doc: "Most hosts one job may target (docs/jobs.md).",
		set: func(c *Config, v string) error { return positiveInt(&c.JobMaxHosts, v) }},
	{Name: "HOSTGATE_JOB_OUTPUT_TTL", Default: "168h", Doc: "How long a job run's whole output is kept after the run (docs/jobs.md).",
		set: func(c *Config, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return fmt.Errorf("must be a positive duration such as 168h")
			}
			c.JobOutputTTL = d
			return nil
		}},
	{Name: "HOSTGATE_JOB_EXPIRY_SCALE", Default: "1", Doc: "TEST-ONLY: multiplies every job's expires_in_s (e.g. 0.1); production leaves it at 1.",
		set: func(c *Config, v string) error {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f <= 0 || f > 1 {
				return fmt.Errorf("must be a number above 0 and at most 1")
			}
			c.JobExpiryScale = f
			return nil
		}},
	{Name: "HOSTGATE_SCHEDULE_INTERVAL", Default: "5s", Doc: "How often each instance looks for due schedules (docs/jobs.md); a run starts at most this late. One indexed query per look.",
		set: func(c *Config, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil || d < 100*time.Millisecond || d > time.Minute {
				return fmt.Errorf("must be a duration from 100ms to 1m")
			}
			c.ScheduleInterval = d
			return nil
		}},
	{Name: "HOSTGATE_RATE_WINDOW", Default: "1m", Doc: "The fixed window every HOSTGATE_RATE_* limit counts in (counted in coordination, shared by all hub instances); tests shorten it.",
		set: func(c *Config, v string) error {
			return duration(&c.RateLimits.Window, v, 100*time.Millisecond, time.Hour)
		}},
	{Name: "HOSTGATE_RATE_LOGIN", Default: "30/10", Doc: "Sign-ins (user and admin, counted apart) per window: per client address / per account name; more get 429 rate_limited before any password check.",
		set: func(c *Config, v string) error { return rateLimit(&c.RateLimits.Login, v, true) }},
	{Name: "HOSTGATE_RATE_REGISTER", Default: "5/3", Doc: "Registrations per window: per client address / per email.",
		set: func(c *Config, v string) error { return rateLimit(&c.RateLimits.Register, v, true) }},
	{Name: "HOSTGATE_RATE_REFRESH", Default: "60", Doc: "Token refreshes (user and admin, counted apart) per window per client address.",
		set: func(c *Config, v string) error { return rateLimit(&c.RateLimits.Refresh, v, false) }},
	{Name: "HOSTGATE_RATE_TICKET", Default: "60/30", Doc: "Terminal tickets per window: per client address / per user or admin.",
		set: func(c *Config, v string) error { return rateLimit(&c.RateLimits.Ticket, v, true) }},
	{Name: "HOSTGATE_RATE_NOTIFY", Default: "600", Doc: "Payment notifications per window per provider address (far above an honest provider's retries: docs/security.md).",
		set: func(c *Config, v string) error { return rateLimit(&c.RateLimits.Notify, v, false) }},
	{Name: "HOSTGATE_RATE_CHECKOUT", Default: "30", Doc: "Dummy checkout page views and payments per window per client address.",
		set: func(c *Config, v string) error { return rateLimit(&c.RateLimits.Checkout, v, false) }},
	{Name: "HOSTGATE_HTTP_HEADER_TIMEOUT", Default: "10s", Doc: "How long a client may take to send a request's line and headers (also the agent socket's upgrade request); then the connection is closed.",
		set: func(c *Config, v string) error {
			return duration(&c.HeaderTimeout, v, 100*time.Millisecond, 5*time.Minute)
		}},
	{Name: "HOSTGATE_HTTP_BODY_TIMEOUT", Default: "10s", Doc: "How long a client may take to send a request's body (at most 1 MiB) after its headers; then 408 body_timeout and the connection is closed. Streams and WebSockets carry no request body and are not cut.",
		set: func(c *Config, v string) error {
			return duration(&c.BodyTimeout, v, 100*time.Millisecond, 10*time.Minute)
		}},
	{Name: "HOSTGATE_INSTALL_RATE_PER_MIN", Default: "10", Doc: "GET /install/{token}.ps1|.sh (one-line installer) requests one source address may send per minute (fixed window, shared by all hub instances); more get 429.",
		set: func(c *Config, v string) error { return positiveInt(&c.InstallRatePerMin, v) }},
}

var sha256RE = regexp.MustCompile(`^[0-9a-fA-F]{64}$`)

func positiveInt(dst *int, v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return fmt.Errorf("must be a positive integer")
	}
	*dst = n
	return nil
}

// duration parses a duration within [lo, hi].
func duration(dst *time.Duration, v string, lo, hi time.Duration) error {
	d, err := time.ParseDuration(v)
	if err != nil || d < lo || d > hi {
		return fmt.Errorf("must be a duration from %s to %s", lo, hi)
	}
	*dst = d
	return nil
}

// rateLimit parses "N" (per client address) or, where the route knows an
// account, "N/M" (per address / per account); each a positive integer.
func rateLimit(dst *httpapi.RateLimit, v string, perAccount bool) error {
	addr, acct, both := strings.Cut(v, "/")
	var l httpapi.RateLimit
	if positiveInt(&l.PerAddress, addr) != nil || (both && (!perAccount || positiveInt(&l.PerAccount, acct) != nil)) {
		if perAccount {
			return fmt.Errorf("must be N or N/M: requests per window per client address, and per account")
		}
		return fmt.Errorf("must be a positive integer: requests per window per client address")
	}
	*dst = l
	return nil
}

// setKey takes base64 of 32 bytes, or nothing; the value is never echoed.
func setKey(dst *string, v string) error {
	if k, err := base64.StdEncoding.DecodeString(v); v != "" && (err != nil || len(k) != 32) {
		return fmt.Errorf("must be base64 of 32 bytes (head -c 32 /dev/urandom | base64), or unset")
	}
	*dst = v
	return nil
}

func setKeys(dst *[][]byte, v string) error {
	keys, err := keyring.ParseKeys(v)
	if err != nil {
		return fmt.Errorf("must be comma-separated base64 of 32 bytes each (hostgate keys generate), or unset: %w", err)
	}
	*dst = keys
	return nil
}

func zeroOrOne(dst *bool, v string) error {
	switch v {
	case "0", "":
		*dst = false
	case "1":
		*dst = true
	default:
		return fmt.Errorf("must be 0 or 1")
	}
	return nil
}

// Parse reads the configuration through getenv (os.Getenv in production).
func Parse(getenv func(string) string) (Config, error) {
	var c Config
	for _, o := range options {
		v := getenv(o.Name)
		if v == "" {
			v = o.Default
		}
		if err := o.set(&c, v); err != nil {
			return Config{}, fmt.Errorf("%s: %w", o.Name, err)
		}
	}
	return c, c.validate()
}

func (c Config) validate() error {
	if (c.AdminUsername == "") != (c.AdminPassword == "") {
		return fmt.Errorf("HOSTGATE_ADMIN_USERNAME and HOSTGATE_ADMIN_PASSWORD must be set together")
	}
	if (c.ExeURL == "") != (c.ExeSHA256 == "") {
		return fmt.Errorf("GATEWAY_EXE_URL and GATEWAY_EXE_SHA256 must be set together (or neither, to hand out the hub's own agent download)")
	}
	if c.AdminUsername != "" {
		// The rules admin.Service.Create applies, checked before anything
		// opens, so a weak password is a message and not a half start.
		name, err := admin.NormalizeUsername(c.AdminUsername)
		if err != nil {
			return adminError(err)
		}
		if err := passwords.Check(c.AdminPassword, name); err != nil {
			return adminError(err)
		}
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return fmt.Errorf("HOSTGATE_TLS_CERT and HOSTGATE_TLS_KEY must be set together")
	}
	if e := c.EPay; (e.GatewayURL != "" || e.PID != "" || e.Key != "") && !e.Configured() {
		return fmt.Errorf("HOSTGATE_EPAY_URL, HOSTGATE_EPAY_PID and HOSTGATE_EPAY_KEY must be set together")
	}
	return nil
}

func setPublicURL(c *Config, v string) error {
	u, err := url.Parse(strings.TrimRight(v, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("must be an http:// or https:// base address")
	}
	c.PublicURL = u
	return nil
}

func setProxies(c *Config, v string) error {
	c.TrustedProxies = nil
	for f := range strings.SplitSeq(v, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			return fmt.Errorf("%q is not a CIDR", f)
		}
		c.TrustedProxies = append(c.TrustedProxies, p.Masked())
	}
	return nil
}

func setOrigins(c *Config, v string) error {
	c.AllowedOrigins = nil
	for f := range strings.SplitSeq(v, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		u, err := url.Parse(f)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" {
			return fmt.Errorf("%q is not an origin (scheme://host[:port])", f)
		}
		c.AllowedOrigins = append(c.AllowedOrigins, u.Scheme+"://"+u.Host)
	}
	return nil
}

// Origins are the browser origins that may open terminal WebSockets: the
// public URL's and the configured ones.
func (c Config) Origins() []string {
	return append([]string{c.PublicURL.Scheme + "://" + c.PublicURL.Host}, c.AllowedOrigins...)
}

func oneOf(dst *string, v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			*dst = v
			return nil
		}
	}
	return fmt.Errorf("must be one of %s", strings.Join(allowed, ", "))
}

// Help is the environment section of `hostgate --help`.
func Help() string {
	var b strings.Builder
	for _, o := range options {
		def := o.Default
		if def == "" {
			def = "unset"
		}
		fmt.Fprintf(&b, "  %-26s %s (default: %s)\n", o.Name, o.Doc, def)
	}
	return b.String()
}

// Masked lists the effective settings for the start-up log; secrets show
// only whether they are set.
func Masked(getenv func(string) string) []any {
	var kv []any
	for _, o := range options {
		v := getenv(o.Name)
		switch {
		case o.Secret && v != "":
			v = "(set)"
		case v == "":
			v = o.Default
		}
		kv = append(kv, o.Name, v)
	}
	return kv
}
