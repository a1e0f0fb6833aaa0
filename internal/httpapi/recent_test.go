package httpapi_test

import (
	"fmt"
	"testing"

	"hostgate/internal/eventually"
	"hostgate/internal/hubtest"
	"hostgate/internal/recent"
)

// TestChangesReachCallsOnOtherInstances: API-key checks and command
// targets are kept for a moment on each instance (package recent). A key
// deleted, a user suspended, a host banned, unbanned or deleted through
// one instance is refused through another one well before the kept fact
// would have expired on its own.
func TestChangesReachCallsOnOtherInstances(t *testing.T) {
	a := hubtest.Start(t, hubtest.Scaled)
	b := a.StartSibling(t)

	u := a.Register(t)
	key := apiKey(t, a, u.AccessToken)
	hs, _ := createWithCreds(t, a, key)
	ping := "/v1/api/hosts/" + hs.ID + "/ping"
	cb := b.Client(t)
	// b must see each change within half the time a fact may be kept:
	// only the forget can make it that fast.
	const soon = recent.TTL / 2
	// answers is a check for eventually.Error: nil once b answers the call
	// with status and code, else what it answered.
	answers := func(k, method, path string, status int, code string) func() error {
		return func() error {
			if r := cb.As(k).Do(method, path, nil); r.Status != status || r.Code() != code {
				return fmt.Errorf("%s %s through b: %d %s, want %d %s", method, path, r.Status, r.Code(), status, code)
			}
			return nil
		}
	}
	op, _ := a.Admin(t, "operator")
	ca := a.Client(t)

	// Keep the key and the host on b, then ban and unban through a.
	cb.As(key).Do("POST", ping, nil).Want(t, 409, "host_offline")
	ca.As(op).Do("POST", "/v1/admin/hosts/"+hs.ID+"/ban", nil).Want(t, 200, "")
	eventually.Error(t, soon, "the ban seen through b", answers(key, "POST", ping, 403, "host_banned"))
	ca.As(op).Do("POST", "/v1/admin/hosts/"+hs.ID+"/unban", nil).Want(t, 200, "")
	eventually.Error(t, soon, "the unban seen through b", answers(key, "POST", ping, 409, "host_offline"))

	// Another user's key never reaches the host, kept or not.
	stranger := apiKey(t, a, a.Register(t).AccessToken)
	cb.As(stranger).Do("POST", ping, nil).Want(t, 404, "not_found")

	// The owner deletes the host through a.
	ca.As(key).Do("DELETE", "/v1/api/hosts/"+hs.ID, nil).Want(t, 204, "")
	eventually.Error(t, soon, "the deletion seen through b", answers(key, "POST", ping, 404, "not_found"))

	// The key is deleted through a.
	var keys struct{ Items []struct{ ID string } }
	ca.As(u.AccessToken).Do("GET", "/v1/user/api-keys", nil).Want(t, 200, "").JSON(t, &keys)
	cb.As(key).Do("GET", "/v1/api/hosts", nil).Want(t, 200, "")
	ca.As(u.AccessToken).Do("DELETE", "/v1/user/api-keys/"+keys.Items[0].ID, nil).Want(t, 200, "")
	eventually.Error(t, soon, "the deleted key refused through b", answers(key, "GET", "/v1/api/hosts", 401, "invalid_token"))

	// The user is suspended through a: their other key stops on b.
	key2 := apiKey(t, a, u.AccessToken)
	cb.As(key2).Do("GET", "/v1/api/hosts", nil).Want(t, 200, "")
	ca.As(op).Do("POST", "/v1/admin/users/"+u.User.ID+"/suspend", nil).Want(t, 200, "")
	eventually.Error(t, soon, "the suspended user's key refused through b", answers(key2, "GET", "/v1/api/hosts", 401, "invalid_token"))
}
