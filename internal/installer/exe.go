package installer

import (
	"hostgate/internal/agentproto"

	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"hostgate/internal/apperr"
	"hostgate/internal/hosts"
)

// maxExe bounds the executable the hub fetches.
const maxExe = 256 << 20

// PayloadFor builds the provisioning payload of c.
func PayloadFor(c hosts.Credentials) agentproto.Payload {
	return agentproto.Payload{SchemaVersion: 1, Hub: agentproto.PayloadHub{Issued: agentproto.Issued{
		HostID: c.HostID, BID: c.BID, SecretKey: c.SecretKey, InstallToken: c.InstallToken,
		AgentPrivkeySeed: c.AgentPrivkeySeed, AgentPubkey: strings.TrimPrefix(c.AgentPubkey, "ed25519:"),
		WSURL: c.WSURL, APIEndpoint: c.APIEndpoint, ListenPort: c.ListenPort,
	}}}
}

// ExeSource fetches the agent executable from GATEWAY_EXE_URL once,
// checks it against GATEWAY_EXE_SHA256, and keeps it in memory. When the
// hub serves the executable itself, Local reads it instead, without a
// request to the hub's own address.
type ExeSource struct {
	URL, SHA256 string
	Client      *http.Client
	// Local, when set, returns the hub's own copy of the executable.
	Local func() ([]byte, error)

	mu  sync.Mutex
	exe []byte
}

// CodeExeUnavailable: the executable could not be fetched or did not match.
const CodeExeUnavailable = "exe_unavailable"

// Get returns the verified executable.
func (e *ExeSource) Get(ctx context.Context) ([]byte, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.exe != nil {
		return e.exe, nil
	}
	if e.Local != nil {
		exe, err := e.Local()
		if err != nil {
			return nil, apperr.New(CodeExeUnavailable, "the hub's own agent executable could not be read: "+err.Error())
		}
		e.exe = exe
		return exe, nil
	}
	exe, err := e.fetch(ctx)
	if err != nil {
		return nil, apperr.New(CodeExeUnavailable, "the agent executable could not be fetched or failed its checksum; try format=ps1")
	}
	e.exe = exe
	return exe, nil
}

func (e *ExeSource) fetch(ctx context.Context) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.URL, nil)
	if err != nil {
		return nil, err
	}
	client := e.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("installer: fetch exe: %s", resp.Status)
	}
	exe, err := io.ReadAll(io.LimitReader(resp.Body, maxExe+1))
	if err != nil || len(exe) > maxExe {
		return nil, fmt.Errorf("installer: fetch exe: too large or unreadable: %v", err)
	}
	sum := sha256.Sum256(exe)
	if !strings.EqualFold(hex.EncodeToString(sum[:]), e.SHA256) {
		return nil, fmt.Errorf("installer: exe checksum mismatch")
	}
	return exe, nil
}

// encodedSize is the payload's JSON size, for the spec's 1 KB bound.
func encodedSize(p agentproto.Payload) int {
	b, _ := json.Marshal(p)
	return len(b)
}
