package httpapi_test

import (
	"encoding/json"
	"testing"

	"hostgate/internal/hubtest"
)

// TestUserCreateHostWithCredentials: POST /v1/user/hosts answers the bare
// Host as it always has, and with with_credentials the host's first install
// credentials beside its fields (the client API answers them under
// credentials of {host, credentials}); they are the host's and they work.
func TestUserCreateHostWithCredentials(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		u := h.Register(t)
		c := h.Client(t).As(u.AccessToken)

		for _, body := range []map[string]any{{"name": "plain"}, {"name": "plain", "with_credentials": false}} {
			var raw map[string]json.RawMessage
			c.Do("POST", "/v1/user/hosts", body).Want(t, 200, "").JSON(t, &raw)
			if _, ok := raw["credentials"]; ok || raw["id"] == nil || raw["bid"] == nil {
				t.Errorf("%v: answer %s; want a Host without credentials", body, raw)
			}
		}

		var out struct {
			host
			Credentials *creds `json:"credentials"`
		}
		c.Do("POST", "/v1/user/hosts", map[string]any{"name": "web-1", "listen_port": 30000, "with_credentials": true}).
			Want(t, 200, "").JSON(t, &out)
		if out.ID == "" || out.Name != "web-1" || out.UserID != u.User.ID || out.Status != "pending" || out.ListenPort != 30000 {
			t.Errorf("host fields = %+v", out.host)
		}
		cr := out.Credentials
		if cr == nil {
			t.Fatal("with_credentials: no credentials in the answer")
		}
		if cr.HostID != out.ID || cr.BID != out.BID || cr.ListenPort != 30000 || len(cr.SecretKey) != 32 ||
			len(cr.InstallToken) != 43 || cr.AgentPrivkeySeed == "" {
			t.Errorf("credentials %+v do not belong to host %+v", cr, out.host)
		}
		// The first install token works, once; the create was the only
		// issuance, so no second call was needed to get it.
		online(t, h, out.ID, cr.InstallToken).Want(t, 200, "")
		online(t, h, out.ID, cr.InstallToken).Want(t, 401, "invalid_token")

		// Refusals are the same with or without credentials, and issue none.
		c.Do("POST", "/v1/user/hosts", map[string]any{"name": "", "with_credentials": true}).Want(t, 400, "invalid_name")
		c.Do("POST", "/v1/user/hosts", map[string]any{"name": "x", "listen_port": 80, "with_credentials": true}).Want(t, 400, "invalid_port")
		c.Do("POST", "/v1/user/hosts", map[string]any{"name": "x", "with_credentials": "yes"}).Want(t, 400, "invalid_body")
	})
}
