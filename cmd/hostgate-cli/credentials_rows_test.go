package main

import (
	"reflect"
	"testing"
	"time"

	hostgate "hostgate/sdk/go"
)

// The credentials table shows the members the CLI always showed, in the
// same order, from the SDK type's own list.
func TestCredentialRows(t *testing.T) {
	c := hostgate.Credentials{HostID: "h", BID: 7, SecretKey: "k", URL: "https://r", InstallToken: "tok",
		InstallTokenExpiresAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), AgentPrivkeySeed: "seed", AgentPubkey: "pub",
		APIEndpoint: "https://api", WSURL: "wss://ws", ListenPort: 23456, ExeURL: "https://exe", ExeSHA256: "sum"}
	want := [][2]string{{"host_id", "h"}, {"bid", "7"}, {"secret_key", "k"}, {"install_token", "tok"},
		{"install_token_expires_at", "2026-01-02 03:04:05Z"}, {"agent_privkey_seed", "seed"}, {"agent_pubkey", "pub"},
		{"api_endpoint", "https://api"}, {"ws_url", "wss://ws"}, {"listen_port", "23456"}}
	if got := credentialRows(c); !reflect.DeepEqual(got, want) {
		t.Errorf("rows %v\nwant %v", got, want)
	}
}
