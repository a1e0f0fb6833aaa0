package redis

import (
	"context"
	"errors"
	"testing"

	goredis "github.com/redis/go-redis/v9"
)

// TestRoundTripErr: what the round-trip observer (and so the hub's
// hostgate_redis_round_trips_total{outcome}) counts as a failure, for
// single commands and pipelines, independent of the server's version.
func TestRoundTripErr(t *testing.T) {
	ctx := context.Background()
	refused := replyErr("ERR unknown subcommand 'setinfo'. Try CLIENT HELP.")
	broken := replyErr("ERR wrong number of arguments")
	netErr := errors.New("read tcp 127.0.0.1:1: i/o timeout")
	cmd := func(err error, args ...any) goredis.Cmder {
		c := goredis.NewStatusCmd(ctx, args...)
		c.SetErr(err)
		return c
	}
	setinfo := func() goredis.Cmder { return cmd(refused, "client", "setinfo", "LIB-NAME", "go-redis") }
	maint := func() goredis.Cmder {
		return cmd(replyErr("ERR unknown subcommand 'maint_notifications'"), "CLIENT", "MAINT_NOTIFICATIONS", "on")
	}
	tests := []struct {
		name string
		err  error
		cmds []goredis.Cmder
		want error
	}{
		{"ok", nil, []goredis.Cmder{cmd(nil, "get", "k")}, nil},
		{"missing key", goredis.Nil, []goredis.Cmder{cmd(goredis.Nil, "get", "k")}, nil},
		{"failed command", broken, []goredis.Cmder{cmd(broken, "set", "k")}, broken},
		{"CLIENT SETINFO refused", refused, []goredis.Cmder{setinfo()}, nil},
		{"CLIENT MAINT_NOTIFICATIONS refused", refused, []goredis.Cmder{maint()}, nil},
		// go-redis returns a single command's error before it sets it on
		// the command.
		{"CLIENT MAINT_NOTIFICATIONS refused, error not yet on the command", refused,
			[]goredis.Cmder{goredis.NewStatusCmd(ctx, "client", "maint_notifications", "on")}, nil},
		{"CLIENT SETINFO, connection lost", netErr, []goredis.Cmder{cmd(netErr, "client", "setinfo", "LIB-VER", "9")}, netErr},
		{"other CLIENT subcommand failed", broken, []goredis.Cmder{cmd(broken, "client", "kill", "x")}, broken},
		{"handshake pipeline, SETINFO refused", refused, []goredis.Cmder{cmd(nil, "hello", "3"), setinfo(), setinfo()}, nil},
		{"pipeline, a missing key then a failure", goredis.Nil, []goredis.Cmder{cmd(goredis.Nil, "get", "a"), cmd(broken, "set", "b")}, broken},
		{"pipeline, SETINFO refused then a failure", refused, []goredis.Cmder{setinfo(), cmd(broken, "select", "99")}, broken},
		{"connection failure no command carries", netErr, []goredis.Cmder{cmd(nil, "get", "k")}, netErr},
	}
	for _, tt := range tests {
		if got := roundTripErr(tt.err, tt.cmds...); got != tt.want {
			t.Errorf("%s: roundTripErr = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// replyErr is an error as Redis answers it (a goredis.Error).
type replyErr string

func (e replyErr) Error() string { return string(e) }
func (replyErr) RedisError()     {}
