package agent

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/clip"
)

// HubError is a refusal from the hub: an HTTP status other than 2xx (or a
// WebSocket upgrade other than 101), with the hub's error code when it
// sent one and the Retry-After it asked for.
type HubError struct {
	Op         string // "online", "refresh", "heartbeat" or "ws"
	Status     int
	Code       string
	Message    string
	RetryAfter time.Duration
}

func (e *HubError) Error() string {
	s := fmt.Sprintf("hub refused %s: HTTP %d", e.Op, e.Status)
	if e.Code != "" {
		s += " " + e.Code
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// statusOf returns the HTTP status of a *HubError in err's chain, or 0.
func statusOf(err error) int {
	var he *HubError
	if errors.As(err, &he) {
		return he.Status
	}
	return 0
}

// maxRetryAfter bounds how long a Retry-After can park the agent.
const maxRetryAfter = 10 * time.Minute

// parseRetryAfter reads delay-seconds or an HTTP date; 0 when absent.
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	v := strings.TrimSpace(h.Get(agentproto.RetryAfterHeader))
	if v == "" {
		return 0
	}
	var d time.Duration
	if n, err := strconv.Atoi(v); err == nil {
		d = time.Duration(n) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	return min(max(d, 0), maxRetryAfter)
}

// hubClient makes the agent's HTTP calls to the hub.
type hubClient struct {
	base    string
	hostID  string
	key     ed25519.PrivateKey
	version string
	http    *http.Client
}

// reply is a decoded 2xx answer with the hub's clock, from Date.
type reply struct {
	serverNow time.Time // zero when the hub sent no usable Date
}

// post sends in as JSON to path and decodes a 2xx answer into out.
func (c *hubClient) post(ctx context.Context, op, path, bearer string, in, out any) (reply, error) {
	body, err := json.Marshal(in)
	if err != nil {
		return reply{}, fmt.Errorf("%s: encode: %w", op, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(body))
	if err != nil {
		return reply{}, fmt.Errorf("%s: %w", op, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "hostgate-agent/"+c.version)
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return reply{}, fmt.Errorf("%s: %w", op, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return reply{}, fmt.Errorf("%s: read answer: %w", op, err)
	}
	if resp.StatusCode/100 != 2 {
		return reply{}, hubError(op, resp, b)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return reply{}, fmt.Errorf("%s: decode answer: %w", op, err)
	}
	r := reply{}
	if t, err := http.ParseTime(resp.Header.Get("Date")); err == nil {
		r.serverNow = t
	}
	return r, nil
}

// hubError builds the error of a refusal. Only the hub's code and message
// are kept: the body of a refusal never echoes request secrets, but it is
// clipped all the same.
func hubError(op string, resp *http.Response, body []byte) *HubError {
	e := &HubError{Op: op, Status: resp.StatusCode, RetryAfter: parseRetryAfter(resp.Header, time.Now())}
	var p struct {
		Code    string `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &p) == nil {
		e.Code, e.Message = clip.String(p.Code, 64), clip.String(p.Message, 200)
	}
	return e
}

// online spends the install token for an agent token.
func (c *hubClient) online(ctx context.Context, installToken string) (agentproto.TokenResponse, reply, error) {
	var t agentproto.TokenResponse
	r, err := c.post(ctx, "online", agentproto.PathOnline, "",
		agentproto.OnlineRequest{HostID: c.hostID, InstallToken: installToken}, &t)
	if err == nil {
		err = c.checkToken(t)
	}
	return t, r, err
}

// refresh runs the challenge-response: fetch a challenge, sign it, trade
// the signature for an agent token.
func (c *hubClient) refresh(ctx context.Context) (agentproto.TokenResponse, reply, error) {
	var ch agentproto.ChallengeResponse
	if _, err := c.post(ctx, "refresh", agentproto.PathRefresh, "", agentproto.RefreshRequest{HostID: c.hostID}, &ch); err != nil {
		return agentproto.TokenResponse{}, reply{}, err
	}
	if ch.Challenge == "" {
		return agentproto.TokenResponse{}, reply{}, errors.New("refresh: hub sent no challenge")
	}
	sig := ed25519.Sign(c.key, agentproto.ChallengeMessage(c.hostID, ch.Challenge))
	var t agentproto.TokenResponse
	r, err := c.post(ctx, "refresh", agentproto.PathRefresh, "", agentproto.RefreshRequest{
		HostID: c.hostID, Challenge: ch.Challenge, Signature: base64.StdEncoding.EncodeToString(sig),
	}, &t)
	if err == nil {
		err = c.checkToken(t)
	}
	return t, r, err
}

func (c *hubClient) checkToken(t agentproto.TokenResponse) error {
	if t.AgentToken == "" {
		return errors.New("hub sent no agent token")
	}
	if t.HostID != "" && !strings.EqualFold(t.HostID, c.hostID) {
		return fmt.Errorf("hub issued a token for host %s, not %s", t.HostID, c.hostID)
	}
	return nil
}

// heartbeat is the fallback heartbeat while the WebSocket is down.
func (c *hubClient) heartbeat(ctx context.Context, token string) error {
	var out agentproto.HeartbeatResponse
	_, err := c.post(ctx, "heartbeat", agentproto.PathHeartbeat, token, agentproto.HeartbeatRequest{AgentVersion: c.version}, &out)
	return err
}
