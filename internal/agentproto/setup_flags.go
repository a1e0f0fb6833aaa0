package agentproto

import (
	"flag"
	"slices"
	"strconv"
	"strings"
)

// SetupOption is one member of the agent setup that a command-line flag
// sets. SetupOptions is the one list: it registers the flags and their
// help (RegisterFlags), makes the flags given override a setup file
// (Override), and says which values are secret (Redact). docs/agent.md
// lists them; a test keeps it in step.
type SetupOption struct {
	Flag   string // the flag, without dashes
	Key    string // the setup file member
	Usage  string // help; a `word` in back quotes names the value
	Secret bool   // never shown: Redact masks it
	field  func(*Setup) any
}

// SetupOptions are the agent's setup flags, in the order of its help.
var SetupOptions = []SetupOption{
	{Flag: "host-id", Key: "host_id", Usage: "host `uuid`", field: func(s *Setup) any { return &s.HostID }},
	{Flag: "bid", Key: "bid", Usage: "host business id", field: func(s *Setup) any { return &s.BID }},
	{Flag: "secret-key", Key: "secret_key", Usage: "host secret key", Secret: true, field: func(s *Setup) any { return &s.SecretKey }},
	{Flag: "install-token", Key: "install_token", Usage: "one-time install `token`", Secret: true,
		field: func(s *Setup) any { return &s.InstallToken }},
	{Flag: "agent-privkey-seed", Key: "agent_privkey_seed", Usage: "base64 ed25519 `seed`", Secret: true,
		field: func(s *Setup) any { return &s.AgentPrivkeySeed }},
	{Flag: "agent-pubkey", Key: "agent_pubkey", Usage: "ed25519:<base64> public `key`", field: func(s *Setup) any { return &s.AgentPubkey }},
	{Flag: "ws-url", Key: "ws_url", Usage: "hub agent WebSocket `url` (wss://…)", field: func(s *Setup) any { return &s.WSURL }},
	{Flag: "api-endpoint", Key: "api_endpoint", Usage: "hub API base `url` (https://…)", field: func(s *Setup) any { return &s.APIEndpoint }},
	{Flag: "state-dir", Key: "state_dir", Usage: "state `directory`", field: func(s *Setup) any { return &s.StateDir }},
	{Flag: "report-url", Key: "report_url", Usage: "L1 reverse reporting `url` (http or https; default none)",
		field: func(s *Setup) any { return &s.ReportURL }},
	{Flag: "listen-port", Key: "listen_port",
		Usage: "the host's listen_port: the local L1 listener's `port` on 127.0.0.1 (default 23456)",
		field: func(s *Setup) any { return &s.ListenPort }},
	{Flag: "l1-listen", Key: "l1_listen", Usage: "local L1 listener `address` host:port, or off (default 127.0.0.1:<listen-port>)",
		field: func(s *Setup) any { return &s.L1Listen }},
	{Flag: "upgrade-confirm-timeout", Key: "upgrade_confirm_timeout",
		Usage: "after an upgrade, how long the new version waits for the hub before it rolls back",
		field: func(s *Setup) any { return &s.UpgradeConfirmTimeout }},
}

// SetupOptionByFlag returns the option of a flag name.
func SetupOptionByFlag(name string) (SetupOption, bool) {
	i := slices.IndexFunc(SetupOptions, func(o SetupOption) bool { return o.Flag == name })
	if i < 0 {
		return SetupOption{}, false
	}
	return SetupOptions[i], true
}

// RegisterFlags defines on fs the flags of the options named (every
// option when none is), writing into dst; usage, when not nil, replaces
// an option's help by flag name.
func RegisterFlags(fs *flag.FlagSet, dst *Setup, usage map[string]string, only ...string) {
	for _, o := range SetupOptions {
		if len(only) > 0 && !slices.Contains(only, o.Flag) {
			continue
		}
		help := o.Usage
		if u, ok := usage[o.Flag]; ok {
			help = u
		}
		switch p := o.field(dst).(type) {
		case *string:
			fs.StringVar(p, o.Flag, *p, help)
		case *int64:
			fs.Int64Var(p, o.Flag, *p, help)
		case *int:
			fs.IntVar(p, o.Flag, *p, help)
		case *Duration:
			fs.Var(p, o.Flag, help)
		}
	}
}

// Override copies into dst the members of flags whose flags were given on
// fs's command line (fs.Visit), so that they override a setup file.
func Override(fs *flag.FlagSet, dst *Setup, flags Setup) {
	fs.Visit(func(f *flag.Flag) {
		o, ok := SetupOptionByFlag(f.Name)
		if !ok {
			return
		}
		switch p := o.field(dst).(type) {
		case *string:
			*p = *o.field(&flags).(*string)
		case *int64:
			*p = *o.field(&flags).(*int64)
		case *int:
			*p = *o.field(&flags).(*int)
		case *Duration:
			*p = *o.field(&flags).(*Duration)
		}
	})
}

// Redact masks in msg the values of s's secret options (four characters
// or more, so that nothing short is masked by accident).
func (s Setup) Redact(msg string) string {
	for _, o := range SetupOptions {
		if !o.Secret {
			continue
		}
		if v, ok := o.field(&s).(*string); ok {
			if secret := strings.TrimSpace(*v); len(secret) >= 4 {
				msg = strings.ReplaceAll(msg, secret, "[redacted]")
			}
		}
	}
	return msg
}

// String describes the setup without its secrets.
func (s Setup) String() string {
	var b strings.Builder
	b.WriteString("{")
	for i, o := range SetupOptions {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(o.Key + "=")
		switch p := o.field(&s).(type) {
		case *string:
			if o.Secret {
				b.WriteString(redact(*p))
			} else {
				b.WriteString(*p)
			}
		case *int64:
			b.WriteString(strconv.FormatInt(*p, 10))
		case *int:
			b.WriteString(strconv.Itoa(*p))
		case *Duration:
			b.WriteString(p.String())
		}
	}
	b.WriteString("}")
	return b.String()
}

// GoString is String, so %#v does not print secrets either.
func (s Setup) GoString() string { return s.String() }
