package storetest

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"hostgate/internal/audit"
	"hostgate/internal/battery"
	"hostgate/internal/hosts"
	"hostgate/internal/paging"
	"hostgate/internal/store"
)

var hostsTests = []test{
	{"CreateHostRoundTrip", testCreateHostRoundTrip},
	{"CreateHostWithIssuance", testCreateHostWithIssuance},
	{"CreateHostBIDTaken", testCreateHostBIDTaken},
	{"CreateHostBIDRace", testCreateHostBIDRace},
	{"HostNotFound", testHostNotFound},
	{"TenantIsolation", testHostTenantIsolation},
	{"DeletedHostInvisible", testDeletedHostInvisible},
	{"DeleteHostAudit", testDeleteHostAudit},
	{"ListOwnedHosts", testListOwnedHosts},
	{"PageOwnedHosts", testPageOwnedHosts},
	{"PageOwnedHostsTotal", testPageOwnedHostsTotal},
	{"UpdateHost", testUpdateHost},
	{"Issue", testIssue},
	{"IssueRotatesSecret", testIssueRotatesSecret},
	{"ConsumeInstallToken", testConsumeInstallToken},
	{"ConsumeInstallTokenExpiry", testConsumeInstallTokenExpiry},
	{"ConsumeInstallTokenSuperseded", testConsumeInstallTokenSuperseded},
	{"ConsumeInstallTokenRace", testConsumeInstallTokenRace},
	{"ExchangeInstallToken", testExchangeInstallToken},
	{"ExchangeInstallTokenRace", testExchangeInstallTokenRace},
	{"RecordHandshake", testRecordHandshake},
	{"MarkSeen", testMarkSeen},
	{"MarkSeenBanned", testMarkSeenBanned},
	{"LargeBatches", testLargeBatches},
	{"SweepStatus", testSweepStatus},
	{"SweepBesideFlushes", testSweepBesideFlushes},
	{"SetBanned", testSetBanned},
	{"ListHosts", testListHosts},
	{"ListHostsLastSeenOrder", testListHostsLastSeenOrder},
	{"SearchIndexSync", testSearchIndexSync},
	{"CountHosts", testCountHosts},
	{"MetricsHistory", testMetricsHistory},
	{"MetricsBatch", testMetricsBatch},
	{"EventsHistory", testEventsHistory},
	{"EventsBatch", testEventsBatch},
}

// bids hands out distinct bids, so that hosts clash only when a test
// means them to.
var bids atomic.Int64

// newHost is a pending host of owner created at created.
func newHost(owner, name string, created time.Time) hosts.Host {
	return hosts.Host{ID: newID(), UserID: owner, Name: name, BID: bids.Add(1) << 20, ListenPort: hosts.DefaultListenPort,
		Status: hosts.StatusPending, CreatedAt: created, WebhookFormat: hosts.DefaultWebhookFormat}
}

// owner creates an active user with this email and returns its id.
func owner(t *testing.T, s store.Store, email string) string {
	t.Helper()
	return createUser(t, s, newUser(email, email, t0)).user.ID
}

// sealed is a stand-in sealed secret for a host.
func sealed(h hosts.Host, n int) []byte { return fmt.Appendf(nil, "sealed %d of %s", n, h.ID) }

// createHost stores h with a first sealed secret and no issuance.
func createHost(t *testing.T, s store.Store, h hosts.Host) hosts.Host {
	t.Helper()
	must(t, "CreateHost", s.Hosts.CreateHost(t.Context(), h, hosts.Secrets{SecretSealed: sealed(h, 1)}, nil))
	return h
}

// issuance is an issuance whose token is hashOf(token), expiring at expires.
func issuance(token string, expires time.Time) hosts.Issuance {
	return hosts.Issuance{AgentPubKey: hashOf("pub " + token), InstallTokenHash: hashOf(token), InstallExpiresAt: expires}
}

func checkHost(t *testing.T, what string, got, want hosts.Host) {
	t.Helper()
	g, w := got, want
	g.CreatedAt, g.LastSeenAt, g.LastOnlineAt = time.Time{}, nil, nil
	w.CreatedAt, w.LastSeenAt, w.LastOnlineAt = time.Time{}, nil, nil
	g.Tags, w.Tags = nil, nil // the store reads tags apart (HostTags)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s: got %+v, want %+v", what, g, w)
	}
	checkTime(t, what+" CreatedAt", got.CreatedAt, want.CreatedAt)
	checkNullTime(t, what+" LastSeenAt", got.LastSeenAt, want.LastSeenAt)
	checkNullTime(t, what+" LastOnlineAt", got.LastOnlineAt, want.LastOnlineAt)
}

func checkNullTime(t *testing.T, what string, got, want *time.Time) {
	t.Helper()
	switch {
	case (got == nil) != (want == nil):
		t.Errorf("%s: got %v, want %v", what, got, want)
	case got != nil:
		checkTime(t, what, *got, *want)
	}
}

func checkSecrets(t *testing.T, what string, got, want hosts.Secrets) {
	t.Helper()
	if !bytes.Equal(got.SecretSealed, want.SecretSealed) || !bytes.Equal(got.AgentPubKey, want.AgentPubKey) ||
		got.CredGen != want.CredGen {
		t.Errorf("%s: got {sealed %q, pubkey %x, gen %d}, want {sealed %q, pubkey %x, gen %d}", what,
			got.SecretSealed, got.AgentPubKey, got.CredGen, want.SecretSealed, want.AgentPubKey, want.CredGen)
	}
}

// hostNow reads a host through HostByID, failing the test on error.
func hostNow(t *testing.T, s store.Store, id string) (hosts.Host, hosts.Secrets) {
	t.Helper()
	h, sec, err := s.Hosts.HostByID(t.Context(), id)
	must(t, "HostByID", err)
	return h, sec
}

func hostIDs(hs []hosts.Host) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.ID)
	}
	return out
}

func testCreateHostRoundTrip(t *testing.T, s store.Store) {
	ann := owner(t, s, "ann@example.com")
	h := newHost(ann, "web-1", t0)
	h.BID = 1<<53 - 1 // the largest bid the service makes
	h.ListenPort, h.ReportURL = 40000, "https://report.example.com/x"
	createHost(t, s, h)

	got, err := s.Hosts.OwnedHost(t.Context(), ann, h.ID)
	must(t, "OwnedHost", err)
	checkHost(t, "OwnedHost", got, h)
	got, sec := hostNow(t, s, h.ID)
	checkHost(t, "HostByID", got, h)
	checkSecrets(t, "secrets without an issuance", sec, hosts.Secrets{SecretSealed: sealed(h, 1)})

	// With no issuance there is no install token to consume.
	_, _, err = s.Hosts.ConsumeInstallToken(t.Context(), h.ID, hashOf(""), t0)
	checkErr(t, "ConsumeInstallToken without an issuance", err, hosts.ErrTokenInvalid)
	_, _, err = s.Hosts.ConsumeInstallToken(t.Context(), h.ID, nil, t0)
	checkErr(t, "ConsumeInstallToken of a nil hash", err, hosts.ErrTokenInvalid)
}

func testCreateHostWithIssuance(t *testing.T, s store.Store) {
	ann := owner(t, s, "ann@example.com")
	h := newHost(ann, "web-1", t0)
	iss := issuance("first", t0.Add(15*time.Minute))
	must(t, "CreateHost", s.Hosts.CreateHost(t.Context(), h, hosts.Secrets{SecretSealed: sealed(h, 1)}, &iss))
	_, sec := hostNow(t, s, h.ID)
	checkSecrets(t, "secrets after a first issuance", sec,
		hosts.Secrets{SecretSealed: sealed(h, 1), AgentPubKey: iss.AgentPubKey, CredGen: 1})
	got, sec, err := s.Hosts.ConsumeInstallToken(t.Context(), h.ID, hashOf("first"), t0.Add(time.Minute))
	must(t, "ConsumeInstallToken of the first issuance", err)
	checkHost(t, "consumed host", got, h)
	checkSecrets(t, "consumed host's secrets", sec,
		hosts.Secrets{SecretSealed: sealed(h, 1), AgentPubKey: iss.AgentPubKey, CredGen: 1})
}

func testCreateHostBIDTaken(t *testing.T, s store.Store) {
	ann, bob := owner(t, s, "ann@example.com"), owner(t, s, "bob@example.com")
	first := createHost(t, s, newHost(ann, "first", t0))

	clash := newHost(ann, "clash", t0)
	clash.BID = first.BID
	err := s.Hosts.CreateHost(t.Context(), clash, hosts.Secrets{SecretSealed: sealed(clash, 1)}, nil)
	checkErr(t, "CreateHost with the owner's bid", err, hosts.ErrBIDTaken)
	_, _, err = s.Hosts.HostByID(t.Context(), clash.ID)
	checkErr(t, "HostByID of the refused host", err, hosts.ErrNotFound)

	other := newHost(bob, "other owner", t0)
	other.BID = first.BID
	createHost(t, s, other) // bids are unique per owner only

	// A deleted host keeps its bid reserved.
	must(t, "DeleteHost", hosts.DeleteHost(t.Context(), s.Hosts, ann, first.ID, t0, nil))
	clash.ID = newID()
	err = s.Hosts.CreateHost(t.Context(), clash, hosts.Secrets{SecretSealed: sealed(clash, 1)}, nil)
	checkErr(t, "CreateHost with a deleted host's bid", err, hosts.ErrBIDTaken)

	// A clash on the id is not a bid clash.
	dupID := newHost(ann, "same id", t0)
	dupID.ID = other.ID
	err = s.Hosts.CreateHost(t.Context(), dupID, hosts.Secrets{SecretSealed: sealed(dupID, 1)}, nil)
	if err == nil || isAny(err, []error{hosts.ErrBIDTaken}) {
		t.Errorf("CreateHost with a taken id: got %v, want an error other than ErrBIDTaken", err)
	}
}

func testCreateHostBIDRace(t *testing.T, s store.Store) {
	ann := owner(t, s, "ann@example.com")
	const n = 20
	bid := bids.Add(1) << 20
	errs := race(n, func(i int) error {
		h := newHost(ann, fmt.Sprint("racer ", i), t0)
		h.BID = bid
		return s.Hosts.CreateHost(t.Context(), h, hosts.Secrets{SecretSealed: sealed(h, 1)}, nil)
	})
	if ok := countRace(t, errs, hosts.ErrBIDTaken); ok != 1 {
		t.Errorf("%d racing CreateHost with one bid: got %d successes, want 1", n, ok)
	}
	hs, err := s.Hosts.ListOwnedHosts(t.Context(), ann)
	must(t, "ListOwnedHosts", err)
	if len(hs) != 1 {
		t.Errorf("hosts after race: got %d, want 1", len(hs))
	}
}

func testHostNotFound(t *testing.T, s store.Store) {
	ann := owner(t, s, "ann@example.com")
	createHost(t, s, newHost(ann, "web-1", t0)) // not empty: a lookup must not find the wrong row
	missing := newID()
	ctx := t.Context()
	for _, c := range []struct {
		op  string
		err error
	}{
		{"OwnedHost", second(s.Hosts.OwnedHost(ctx, ann, missing))},
		{"UpdateHost", second(s.Hosts.UpdateHost(ctx, ann, missing, "x", 2000))},
		{"DeleteHost", hosts.DeleteHost(ctx, s.Hosts, ann, missing, t0, nil)},
		{"DeleteHost by an admin", hosts.DeleteHost(ctx, s.Hosts, "", missing, t0, nil)},
		{"HostByID", third(s.Hosts.HostByID(ctx, missing))},
		{"Issue", third(s.Hosts.Issue(ctx, ann, missing, issuance("x", t0)))},
		{"RecordHandshake", s.Hosts.RecordHandshake(ctx, missing, "192.0.2.1", "linux", "1.0", t0)},
		{"SetBanned", second(hosts.SetBanned(ctx, s.Hosts, missing, true, entry("a", audit.ActionHostBan, "host")))},
		{"AppendEvent", s.Hosts.AppendEvent(ctx, missing, hosts.Event{At: t0, Kind: "k"}, 10)},
	} {
		checkErr(t, c.op, c.err, hosts.ErrNotFound)
	}
	must(t, "AppendMetrics of an unknown host (skipped)", s.Hosts.AppendMetrics(ctx, []hosts.Sample{{HostID: missing, Metrics: hosts.Metrics{At: t0}}}, 10))
	_, _, err := s.Hosts.ConsumeInstallToken(ctx, missing, hashOf("x"), t0)
	checkErr(t, "ConsumeInstallToken", err, hosts.ErrTokenInvalid)
	must(t, "MarkSeen of an unknown host", s.Hosts.MarkSeen(ctx, []hosts.Seen{{HostID: missing, At: t0}}))
	checkNoAudit(t, s)
}

// checkNoAudit checks that the store holds no audit entry.
func checkNoAudit(t *testing.T, s store.Store) {
	t.Helper()
	_, total, err := s.Audit.ListAudit(t.Context(), audit.Filter{}, page(50, 0))
	must(t, "ListAudit", err)
	if total != 0 {
		t.Errorf("audit rows: got %d, want 0", total)
	}
}

func testHostTenantIsolation(t *testing.T, s store.Store) {
	ann, bob := owner(t, s, "ann@example.com"), owner(t, s, "bob@example.com")
	h := newHost(ann, "ann's", t0)
	iss := issuance("ann", t0.Add(time.Hour))
	must(t, "CreateHost", s.Hosts.CreateHost(t.Context(), h, hosts.Secrets{SecretSealed: sealed(h, 1)}, &iss))
	ctx := t.Context()
	for _, c := range []struct {
		op  string
		err error
	}{
		{"OwnedHost", second(s.Hosts.OwnedHost(ctx, bob, h.ID))},
		{"UpdateHost", second(s.Hosts.UpdateHost(ctx, bob, h.ID, "mine now", 2000))},
		{"DeleteHost", hosts.DeleteHost(ctx, s.Hosts, bob, h.ID, t0, nil)},
		{"Issue", third(s.Hosts.Issue(ctx, bob, h.ID, issuance("bob", t0.Add(time.Hour))))},
		{"OwnedHost with no owner", second(s.Hosts.OwnedHost(ctx, "", h.ID))},
		{"Issue with no owner", third(s.Hosts.Issue(ctx, "", h.ID, issuance("nobody", t0.Add(time.Hour))))},
	} {
		checkErr(t, c.op, c.err, hosts.ErrNotFound)
	}
	hs, err := s.Hosts.ListOwnedHosts(ctx, bob)
	must(t, "ListOwnedHosts", err)
	if len(hs) != 0 {
		t.Errorf("ListOwnedHosts of another owner: got %v, want none", hostIDs(hs))
	}
	// Nothing of ann's host changed.
	got, sec := hostNow(t, s, h.ID)
	checkHost(t, "host after another owner's attempts", got, h)
	checkSecrets(t, "secrets after another owner's attempts", sec,
		hosts.Secrets{SecretSealed: sealed(h, 1), AgentPubKey: iss.AgentPubKey, CredGen: 1})
	_, _, err = s.Hosts.ConsumeInstallToken(ctx, h.ID, hashOf("ann"), t0)
	must(t, "ConsumeInstallToken of the owner's token", err)
}

func testDeletedHostInvisible(t *testing.T, s store.Store) {
	ann := owner(t, s, "ann@example.com")
	kept := createHost(t, s, newHost(ann, "kept", t0))
	h := newHost(ann, "doomed", t0.Add(time.Minute))
	iss := issuance("doomed", t0.Add(time.Hour))
	must(t, "CreateHost", s.Hosts.CreateHost(t.Context(), h, hosts.Secrets{SecretSealed: sealed(h, 1)}, &iss))
	must(t, "AppendMetrics", s.Hosts.AppendMetrics(t.Context(), []hosts.Sample{{HostID: h.ID, Metrics: hosts.Metrics{At: t0, CPUPct: 1}}}, 10))
	must(t, "AppendEvent", s.Hosts.AppendEvent(t.Context(), h.ID, hosts.Event{At: t0, Kind: "connected"}, 10))
	must(t, "DeleteHost", hosts.DeleteHost(t.Context(), s.Hosts, ann, h.ID, t0.Add(2*time.Minute), nil))
	checkNoAudit(t, s)

	ctx := t.Context()
	for _, c := range []struct {
		op  string
		err error
	}{
		{"OwnedHost", second(s.Hosts.OwnedHost(ctx, ann, h.ID))},
		{"UpdateHost", second(s.Hosts.UpdateHost(ctx, ann, h.ID, "back", 2000))},
		{"DeleteHost again", hosts.DeleteHost(ctx, s.Hosts, ann, h.ID, t0, nil)},
		{"DeleteHost again by an admin", hosts.DeleteHost(ctx, s.Hosts, "", h.ID, t0, nil)},
		{"HostByID", third(s.Hosts.HostByID(ctx, h.ID))},
		{"Issue", third(s.Hosts.Issue(ctx, ann, h.ID, issuance("again", t0.Add(time.Hour))))},
		{"RecordHandshake", s.Hosts.RecordHandshake(ctx, h.ID, "192.0.2.1", "linux", "1.0", t0)},
		{"SetBanned", second(hosts.SetBanned(ctx, s.Hosts, h.ID, true, entry("a", audit.ActionHostBan, "host")))},
		{"AppendEvent", s.Hosts.AppendEvent(ctx, h.ID, hosts.Event{At: t0, Kind: "k"}, 10)},
	} {
		checkErr(t, c.op, c.err, hosts.ErrNotFound)
	}
	must(t, "AppendMetrics of a deleted host (skipped)", s.Hosts.AppendMetrics(ctx, []hosts.Sample{{HostID: h.ID, Metrics: hosts.Metrics{At: t0}}}, 10))
	checkNoAudit(t, s) // the refused SetBanned wrote nothing
	_, _, err := s.Hosts.ConsumeInstallToken(ctx, h.ID, hashOf("doomed"), t0)
	checkErr(t, "ConsumeInstallToken of a deleted host's token", err, hosts.ErrTokenInvalid)

	must(t, "MarkSeen", s.Hosts.MarkSeen(ctx, []hosts.Seen{{HostID: h.ID, At: t0}}))
	must(t, "SweepStatus", s.Hosts.SweepStatus(ctx, t0, t0))
	owned, err := s.Hosts.ListOwnedHosts(ctx, ann)
	must(t, "ListOwnedHosts", err)
	if got := hostIDs(owned); !slices.Equal(got, []string{kept.ID}) {
		t.Errorf("ListOwnedHosts: got %v, want only %s", got, kept.ID)
	}
	listed, total, err := s.Hosts.ListHosts(ctx, hosts.Filter{}, page(50, 0))
	must(t, "ListHosts", err)
	if total != 1 || len(listed) != 1 || listed[0].ID != kept.ID {
		t.Errorf("ListHosts: got %d of %d, want only %s", len(listed), total, kept.ID)
	}
	counts, err := s.Hosts.CountHosts(ctx)
	must(t, "CountHosts", err)
	if counts[hosts.StatusPending] != 1 {
		t.Errorf("CountHosts pending: got %d, want 1 (the deleted host not counted)", counts[hosts.StatusPending])
	}
	if m, err := s.Hosts.ListMetrics(ctx, h.ID, 10); err != nil || len(m) != 0 {
		t.Errorf("ListMetrics: got %d samples, %v; want none", len(m), err)
	}
	if e, err := s.Hosts.ListEvents(ctx, h.ID, 10); err != nil || len(e) != 0 {
		t.Errorf("ListEvents: got %d events, %v; want none", len(e), err)
	}
}

func testDeleteHostAudit(t *testing.T, s store.Store) {
	ann := owner(t, s, "ann@example.com")
	h := createHost(t, s, newHost(ann, "web-1", t0))
	rec := entry("admin-1", audit.ActionHostDelete, "host")
	rec.TargetID = h.ID
	now := t0.Add(time.Hour)
	must(t, "DeleteHost by an admin", hosts.DeleteHost(t.Context(), s.Hosts, "", h.ID, now, &rec))
	checkOneAudit(t, s, rec, now)
	_, _, err := s.Hosts.HostByID(t.Context(), h.ID)
	checkErr(t, "HostByID after deletion", err, hosts.ErrNotFound)

	// A refused deletion writes no entry.
	err = hosts.DeleteHost(t.Context(), s.Hosts, "", h.ID, now, &rec)
	checkErr(t, "DeleteHost again", err, hosts.ErrNotFound)
	checkOneAudit(t, s, rec, now)
}

func testListOwnedHosts(t *testing.T, s store.Store) {
	ann, bob := owner(t, s, "ann@example.com"), owner(t, s, "bob@example.com")
	var seed []hosts.Host
	for i, at := range []time.Time{t0.Add(time.Minute), t0, t0.Add(time.Hour), t0, t0.Add(-time.Microsecond)} {
		seed = append(seed, createHost(t, s, newHost(ann, fmt.Sprint("host ", i), at)))
	}
	createHost(t, s, newHost(bob, "bob's", t0))
	want := slices.Clone(seed)
	slices.SortFunc(want, func(a, b hosts.Host) int { // newest first, id breaking ties
		if c := stored(b.CreatedAt).Compare(stored(a.CreatedAt)); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	got, err := s.Hosts.ListOwnedHosts(t.Context(), ann)
	must(t, "ListOwnedHosts", err)
	if g, w := hostIDs(got), hostIDs(want); !slices.Equal(g, w) {
		t.Fatalf("ListOwnedHosts: got %v, want %v", g, w)
	}
	for i := range got {
		checkHost(t, "listed host", got[i], want[i])
	}
	none, err := s.Hosts.ListOwnedHosts(t.Context(), newID())
	must(t, "ListOwnedHosts of an unknown owner", err)
	if len(none) != 0 {
		t.Errorf("ListOwnedHosts of an unknown owner: got %d, want none", len(none))
	}
}

func testUpdateHost(t *testing.T, s store.Store) {
	ann := owner(t, s, "ann@example.com")
	h := createHost(t, s, newHost(ann, "web-1", t0))
	got, err := s.Hosts.UpdateHost(t.Context(), ann, h.ID, "web-one", 30000)
	must(t, "UpdateHost", err)
	h.Name, h.ListenPort = "web-one", 30000
	checkHost(t, "UpdateHost result", got, h)
	got, err = s.Hosts.OwnedHost(t.Context(), ann, h.ID)
	must(t, "OwnedHost", err)
	checkHost(t, "host after update", got, h)
}

func testIssue(t *testing.T, s store.Store) {
	ann := owner(t, s, "ann@example.com")
	h := createHost(t, s, newHost(ann, "web-1", t0))
	for gen := int64(1); gen <= 3; gen++ {
		iss := issuance(fmt.Sprint("token ", gen), t0.Add(time.Hour))
		got, sec, err := s.Hosts.Issue(t.Context(), ann, h.ID, iss)
		must(t, "Issue", err)
		checkHost(t, "Issue result", got, h)
		want := hosts.Secrets{SecretSealed: sealed(h, 1), AgentPubKey: iss.AgentPubKey, CredGen: gen}
		checkSecrets(t, "Issue result secrets", sec, want)
		_, sec = hostNow(t, s, h.ID)
		checkSecrets(t, "stored secrets after Issue", sec, want)
	}
	_, _, err := s.Hosts.ConsumeInstallToken(t.Context(), h.ID, hashOf("token 3"), t0)
	must(t, "ConsumeInstallToken of the latest token", err)
}

func testIssueRotatesSecret(t *testing.T, s store.Store) {
	ann := owner(t, s, "ann@example.com")
	h := createHost(t, s, newHost(ann, "web-1", t0))
	iss := issuance("rotated", t0.Add(time.Hour))
	iss.SecretSealed = sealed(h, 2)
	_, sec, err := s.Hosts.Issue(t.Context(), ann, h.ID, iss)
	must(t, "Issue with a new secret", err)
	want := hosts.Secrets{SecretSealed: sealed(h, 2), AgentPubKey: iss.AgentPubKey, CredGen: 1}
	checkSecrets(t, "Issue result secrets", sec, want)
	_, sec = hostNow(t, s, h.ID)
	checkSecrets(t, "stored secrets", sec, want)

	// The next issuance without a secret keeps the rotated one.
	_, sec, err = s.Hosts.Issue(t.Context(), ann, h.ID, issuance("next", t0.Add(time.Hour)))
	must(t, "Issue", err)
	if !bytes.Equal(sec.SecretSealed, sealed(h, 2)) || sec.CredGen != 2 {
		t.Errorf("secrets after a plain issuance: got %q gen %d, want %q gen 2", sec.SecretSealed, sec.CredGen, sealed(h, 2))
	}
}

func testConsumeInstallToken(t *testing.T, s store.Store) {
	ann := owner(t, s, "ann@example.com")
	h := createHost(t, s, newHost(ann, "web-1", t0))
	iss := issuance("good", t0.Add(15*time.Minute))
	_, _, err := s.Hosts.Issue(t.Context(), ann, h.ID, iss)
	must(t, "Issue", err)
	other := createHost(t, s, newHost(ann, "other", t0))

	_, _, err = s.Hosts.ConsumeInstallToken(t.Context(), h.ID, hashOf("wrong"), t0)
	checkErr(t, "ConsumeInstallToken with a wrong token", err, hosts.ErrTokenInvalid)
	_, _, err = s.Hosts.ConsumeInstallToken(t.Context(), other.ID, hashOf("good"), t0)
	checkErr(t, "ConsumeInstallToken with another host's token", err, hosts.ErrTokenInvalid)

	got, sec, err := s.Hosts.ConsumeInstallToken(t.Context(), h.ID, hashOf("good"), t0)
	must(t, "ConsumeInstallToken", err)
	checkHost(t, "consumed host", got, h)
	checkSecrets(t, "consumed host's secrets", sec,
		hosts.Secrets{SecretSealed: sealed(h, 1), AgentPubKey: iss.AgentPubKey, CredGen: 1})

	_, _, err = s.Hosts.ConsumeInstallToken(t.Context(), h.ID, hashOf("good"), t0)
	checkErr(t, "ConsumeInstallToken a second time", err, hosts.ErrTokenInvalid)
	// Consuming changed nothing else.
	_, sec = hostNow(t, s, h.ID)
	checkSecrets(t, "secrets after consumption", sec,
		hosts.Secrets{SecretSealed: sealed(h, 1), AgentPubKey: iss.AgentPubKey, CredGen: 1})
}

func testConsumeInstallTokenExpiry(t *testing.T, s store.Store) {
	ann := owner(t, s, "ann@example.com")
	h := createHost(t, s, newHost(ann, "web-1", t0))
	expires := t0.Add(15 * time.Minute)
	_, _, err := s.Hosts.Issue(t.Context(), ann, h.ID, issuance("token", expires))
	must(t, "Issue", err)
	_, _, err = s.Hosts.ConsumeInstallToken(t.Context(), h.ID, hashOf("token"), expires)
	checkErr(t, "ConsumeInstallToken at expiry", err, hosts.ErrTokenInvalid)
	_, _, err = s.Hosts.ConsumeInstallToken(t.Context(), h.ID, hashOf("token"), expires.Add(time.Hour))
	checkErr(t, "ConsumeInstallToken after expiry", err, hosts.ErrTokenInvalid)
	_, _, err = s.Hosts.ConsumeInstallToken(t.Context(), h.ID, hashOf("token"), expires.Add(-time.Microsecond))
	must(t, "ConsumeInstallToken a microsecond before expiry", err)
	battery.Report(t, "T44", "install token issued for 15 min: refused at its expiry and 1 h after, accepted 1 µs before (the hub issues them for 900 s)")
}

func testConsumeInstallTokenSuperseded(t *testing.T, s store.Store) {
	ann := owner(t, s, "ann@example.com")
	h := newHost(ann, "web-1", t0)
	first := issuance("first", t0.Add(time.Hour))
	must(t, "CreateHost", s.Hosts.CreateHost(t.Context(), h, hosts.Secrets{SecretSealed: sealed(h, 1)}, &first))
	_, _, err := s.Hosts.Issue(t.Context(), ann, h.ID, issuance("second", t0.Add(time.Hour)))
	must(t, "Issue", err)
	_, _, err = s.Hosts.ConsumeInstallToken(t.Context(), h.ID, hashOf("first"), t0)
	checkErr(t, "ConsumeInstallToken of a superseded token", err, hosts.ErrTokenInvalid)
	_, sec, err := s.Hosts.ConsumeInstallToken(t.Context(), h.ID, hashOf("second"), t0)
	must(t, "ConsumeInstallToken of the current token", err)
	if sec.CredGen != 2 {
		t.Errorf("CredGen: got %d, want 2", sec.CredGen)
	}
}

func testConsumeInstallTokenRace(t *testing.T, s store.Store) {
	ann := owner(t, s, "ann@example.com")
	h := newHost(ann, "web-1", t0)
	iss := issuance("contested", t0.Add(time.Hour))
	must(t, "CreateHost", s.Hosts.CreateHost(t.Context(), h, hosts.Secrets{SecretSealed: sealed(h, 1)}, &iss))
	const n = 20
	// Warm the pools up first, so that the racers do not queue behind
	// connections being opened, which would spread them out in time.
	countRace(t, race(n, func(int) error { return third(s.Hosts.HostByID(t.Context(), h.ID)) }))
	errs := race(n, func(int) error {
		got, _, err := s.Hosts.ConsumeInstallToken(t.Context(), h.ID, hashOf("contested"), t0)
		if err == nil && got.ID != h.ID {
			return fmt.Errorf("got host %q, want %q", got.ID, h.ID)
		}
		return err
	})
	if ok := countRace(t, errs, hosts.ErrTokenInvalid); ok != 1 {
		t.Errorf("%d racing ConsumeInstallToken with one token: got %d successes, want 1", n, ok)
	}
}

func testExchangeInstallToken(t *testing.T, s store.Store) {
	ann, bob := owner(t, s, "ann@example.com"), owner(t, s, "bob@example.com")
	h := newHost(ann, "web-1", t0)
	first := issuance("first", t0.Add(15*time.Minute))
	must(t, "CreateHost", s.Hosts.CreateHost(t.Context(), h, hosts.Secrets{SecretSealed: sealed(h, 1)}, &first))
	other := newHost(bob, "bob's", t0)
	otherIss := issuance("bob", t0.Add(15*time.Minute))
	must(t, "CreateHost", s.Hosts.CreateHost(t.Context(), other, hosts.Secrets{SecretSealed: sealed(other, 1)}, &otherIss))

	next := issuance("next", t0.Add(30*time.Minute))
	for _, c := range []struct {
		what string
		hash []byte
		now  time.Time
	}{
		{"an unknown token", hashOf("unknown"), t0},
		{"a nil hash", nil, t0},
		{"an expired token", hashOf("first"), t0.Add(15 * time.Minute)},
	} {
		_, _, err := s.Hosts.ExchangeInstallToken(t.Context(), c.hash, c.now, next)
		checkErr(t, "ExchangeInstallToken of "+c.what, err, hosts.ErrTokenInvalid)
	}
	_, sec := hostNow(t, s, h.ID)
	checkSecrets(t, "secrets after refused exchanges", sec,
		hosts.Secrets{SecretSealed: sealed(h, 1), AgentPubKey: first.AgentPubKey, CredGen: 1})

	got, sec, err := s.Hosts.ExchangeInstallToken(t.Context(), hashOf("first"), t0.Add(time.Minute), next)
	must(t, "ExchangeInstallToken", err)
	checkHost(t, "exchanged host", got, h)
	checkSecrets(t, "exchanged host's secrets", sec,
		hosts.Secrets{SecretSealed: sealed(h, 1), AgentPubKey: next.AgentPubKey, CredGen: 2})
	_, _, err = s.Hosts.ExchangeInstallToken(t.Context(), hashOf("first"), t0.Add(time.Minute), issuance("again", t0.Add(time.Hour)))
	checkErr(t, "ExchangeInstallToken a second time", err, hosts.ErrTokenInvalid)
	// The old token cannot enrol; the new one can.
	_, _, err = s.Hosts.ConsumeInstallToken(t.Context(), h.ID, hashOf("first"), t0.Add(time.Minute))
	checkErr(t, "ConsumeInstallToken of the exchanged token", err, hosts.ErrTokenInvalid)
	_, _, err = s.Hosts.ConsumeInstallToken(t.Context(), h.ID, hashOf("next"), t0.Add(time.Minute))
	must(t, "ConsumeInstallToken of the new token", err)
	// Bob's host was not touched.
	_, sec = hostNow(t, s, other.ID)
	checkSecrets(t, "other host's secrets", sec,
		hosts.Secrets{SecretSealed: sealed(other, 1), AgentPubKey: otherIss.AgentPubKey, CredGen: 1})

	// A deleted host's token is dead.
	must(t, "DeleteHost", hosts.DeleteHost(t.Context(), s.Hosts, bob, other.ID, t0, nil))
	_, _, err = s.Hosts.ExchangeInstallToken(t.Context(), hashOf("bob"), t0, next)
	checkErr(t, "ExchangeInstallToken of a deleted host", err, hosts.ErrTokenInvalid)
}

func testExchangeInstallTokenRace(t *testing.T, s store.Store) {
	ann := owner(t, s, "ann@example.com")
	h := newHost(ann, "web-1", t0)
	iss := issuance("contested", t0.Add(time.Hour))
	must(t, "CreateHost", s.Hosts.CreateHost(t.Context(), h, hosts.Secrets{SecretSealed: sealed(h, 1)}, &iss))
	const n = 20
	countRace(t, race(n, func(int) error { return third(s.Hosts.HostByID(t.Context(), h.ID)) }))
	errs := race(n, func(i int) error {
		_, _, err := s.Hosts.ExchangeInstallToken(t.Context(), hashOf("contested"), t0, issuance(fmt.Sprint("racer ", i), t0.Add(time.Hour)))
		return err
	})
	if ok := countRace(t, errs, hosts.ErrTokenInvalid); ok != 1 {
		t.Errorf("%d racing ExchangeInstallToken with one token: got %d successes, want 1", n, ok)
	}
	if _, sec := hostNow(t, s, h.ID); sec.CredGen != 2 {
		t.Errorf("CredGen after the race: got %d, want 2", sec.CredGen)
	}
}

func testRecordHandshake(t *testing.T, s store.Store) {
	ann := owner(t, s, "ann@example.com")
	h := createHost(t, s, newHost(ann, "web-1", t0))
	at := t0.Add(time.Minute)
	must(t, "RecordHandshake", s.Hosts.RecordHandshake(t.Context(), h.ID, "203.0.113.9", "linux/amd64", "1.2.3", at))
	h.PublicIP, h.OS, h.InstalledVersion = "203.0.113.9", "linux/amd64", "1.2.3"
	h.LastSeenAt, h.LastOnlineAt = &at, &at
	h.Status = hosts.StatusOnline // at once, not at the next liveness flush
	got, _ := hostNow(t, s, h.ID)
	checkHost(t, "host after handshake", got, h)

	// An earlier handshake time does not move the times back.
	must(t, "RecordHandshake", s.Hosts.RecordHandshake(t.Context(), h.ID, "203.0.113.10", "windows", "1.2.4", t0))
	h.PublicIP, h.OS, h.InstalledVersion = "203.0.113.10", "windows", "1.2.4"
	got, _ = hostNow(t, s, h.ID)
	checkHost(t, "host after an earlier handshake", got, h)

	// A banned host stays banned, and its last_online_at stays.
	_, err := hosts.SetBanned(t.Context(), s.Hosts, h.ID, true, entry("a", audit.ActionHostBan, "host"))
	must(t, "SetBanned", err)
	later := at.Add(time.Minute)
	must(t, "RecordHandshake of a banned host", s.Hosts.RecordHandshake(t.Context(), h.ID, "203.0.113.10", "windows", "1.2.4", later))
	h.Status, h.LastSeenAt = hosts.StatusBanned, &later
	got, _ = hostNow(t, s, h.ID)
	checkHost(t, "banned host after a handshake", got, h)
}

func testMarkSeen(t *testing.T, s store.Store) {
	ann := owner(t, s, "ann@example.com")
	a := createHost(t, s, newHost(ann, "a", t0))
	b := createHost(t, s, newHost(ann, "b", t0))
	c := createHost(t, s, newHost(ann, "c", t0)) // never seen
	must(t, "MarkSeen of nothing", s.Hosts.MarkSeen(t.Context(), nil))

	t1, t2 := t0.Add(time.Minute), t0.Add(2*time.Minute)
	must(t, "MarkSeen", s.Hosts.MarkSeen(t.Context(), []hosts.Seen{
		{HostID: a.ID, At: t2}, {HostID: b.ID, At: t1}, {HostID: a.ID, At: t1}, {HostID: newID(), At: t1},
	}))
	for _, w := range []struct {
		h  hosts.Host
		at time.Time
	}{{a, t2}, {b, t1}} {
		w.h.Status, w.h.LastSeenAt, w.h.LastOnlineAt = hosts.StatusOnline, &w.at, &w.at
		got, _ := hostNow(t, s, w.h.ID)
		checkHost(t, "seen host", got, w.h)
	}
	got, _ := hostNow(t, s, c.ID)
	checkHost(t, "host not in the batch", got, c)

	// An older fact does not move last_seen back, and revives a swept host.
	must(t, "SweepStatus", s.Hosts.SweepStatus(t.Context(), t2.Add(time.Second), t2.Add(time.Second)))
	must(t, "MarkSeen", s.Hosts.MarkSeen(t.Context(), []hosts.Seen{{HostID: a.ID, At: t1}}))
	a.Status, a.LastSeenAt, a.LastOnlineAt = hosts.StatusOnline, &t2, &t2
	got, _ = hostNow(t, s, a.ID)
	checkHost(t, "host seen with an older fact", got, a)
}

// testLargeBatches: batches longer than one statement's share of rows
// (VALUES lists on SQLite) with unknown hosts and repeats, in order.
func testLargeBatches(t *testing.T, s store.Store) {
	ann := owner(t, s, "ann@example.com")
	const n = 150
	hs := make([]hosts.Host, n)
	var seen []hosts.Seen
	var samples []hosts.Sample
	for i := range hs {
		hs[i] = createHost(t, s, newHost(ann, fmt.Sprint("h", i), t0))
		at := t0.Add(time.Duration(i) * time.Second)
		seen = append(seen, hosts.Seen{HostID: hs[i].ID, At: at}, hosts.Seen{HostID: newID(), At: at})
		samples = append(samples, hosts.Sample{HostID: hs[i].ID, Metrics: hosts.Metrics{At: t0, CPUPct: float64(i)}},
			hosts.Sample{HostID: newID(), Metrics: hosts.Metrics{At: t0}})
	}
	// The first host is seen late too, earlier in the batch, and has a
	// sample in every part of the batch, all at one time.
	seen = append([]hosts.Seen{{HostID: hs[0].ID, At: t0.Add(time.Hour)}}, seen...)
	for i := range 3 {
		samples = append(samples, hosts.Sample{HostID: hs[0].ID, Metrics: hosts.Metrics{At: t0, CPUPct: float64(1000 + i)}})
	}
	must(t, "MarkSeen", s.Hosts.MarkSeen(t.Context(), seen))
	must(t, "AppendMetrics", s.Hosts.AppendMetrics(t.Context(), samples, 0))
	for i, h := range hs {
		at := t0.Add(time.Duration(i) * time.Second)
		if i == 0 {
			at = t0.Add(time.Hour)
		}
		h.Status, h.LastSeenAt, h.LastOnlineAt = hosts.StatusOnline, &at, &at
		got, _ := hostNow(t, s, h.ID)
		checkHost(t, fmt.Sprint("host ", i), got, h)
		ms, err := s.Hosts.ListMetrics(t.Context(), h.ID, 10)
		must(t, "ListMetrics", err)
		want := []float64{float64(i)}
		if i == 0 {
			want = []float64{1002, 1001, 1000, 0} // newest stored first
		}
		var cpu []float64
		for _, m := range ms {
			cpu = append(cpu, m.CPUPct)
		}
		if !slices.Equal(cpu, want) {
			t.Errorf("host %d samples: got cpu %v, want %v", i, cpu, want)
		}
	}
}

func testMarkSeenBanned(t *testing.T, s store.Store) {
	ann := owner(t, s, "ann@example.com")
	h := createHost(t, s, newHost(ann, "a", t0))
	t1, t2 := t0.Add(time.Minute), t0.Add(2*time.Minute)
	must(t, "MarkSeen", s.Hosts.MarkSeen(t.Context(), []hosts.Seen{{HostID: h.ID, At: t1}}))
	_, err := hosts.SetBanned(t.Context(), s.Hosts, h.ID, true, entry("a", audit.ActionHostBan, "host"))
	must(t, "SetBanned", err)
	must(t, "MarkSeen of a banned host", s.Hosts.MarkSeen(t.Context(), []hosts.Seen{{HostID: h.ID, At: t2}}))
	h.Status, h.LastSeenAt, h.LastOnlineAt = hosts.StatusBanned, &t2, &t1
	got, _ := hostNow(t, s, h.ID)
	checkHost(t, "banned host after a heartbeat", got, h)
}

func testSweepStatus(t *testing.T, s store.Store) {
	ann := owner(t, s, "ann@example.com")
	now := t0.Add(time.Hour)
	staleBefore, offlineBefore := now.Add(-hosts.StaleAfter), now.Add(-hosts.OfflineAfter)
	type want struct {
		name   string
		from   hosts.Status
		seen   *time.Time
		status hosts.Status
	}
	at := func(d time.Duration) *time.Time { return new(now.Add(-d)) }
	cases := []want{
		{"online, just seen", hosts.StatusOnline, at(time.Second), hosts.StatusOnline},
		{"online, seen at the stale bound", hosts.StatusOnline, at(hosts.StaleAfter), hosts.StatusOnline},
		{"online, silent past the stale bound", hosts.StatusOnline, at(hosts.StaleAfter + time.Microsecond), hosts.StatusStale},
		{"online, silent past the offline bound", hosts.StatusOnline, at(hosts.OfflineAfter + time.Microsecond), hosts.StatusOffline},
		{"stale, silent between the bounds", hosts.StatusStale, at(2 * time.Minute), hosts.StatusStale},
		{"stale, seen at the offline bound", hosts.StatusStale, at(hosts.OfflineAfter), hosts.StatusStale},
		{"stale, silent past the offline bound", hosts.StatusStale, at(time.Hour), hosts.StatusOffline},
		{"offline, silent", hosts.StatusOffline, at(time.Hour), hosts.StatusOffline},
		{"pending, never seen", hosts.StatusPending, nil, hosts.StatusPending},
		{"pending, handshake long ago", hosts.StatusPending, at(time.Hour), hosts.StatusPending},
		{"banned, silent", hosts.StatusBanned, at(time.Hour), hosts.StatusBanned},
	}
	ids := make([]string, len(cases))
	for i, c := range cases {
		h := newHost(ann, c.name, t0)
		h.Status, h.LastSeenAt = c.from, c.seen
		ids[i] = createHost(t, s, h).ID
	}
	for range 2 { // a second sweep changes nothing more
		must(t, "SweepStatus", s.Hosts.SweepStatus(t.Context(), staleBefore, offlineBefore))
		for i, c := range cases {
			got, _ := hostNow(t, s, ids[i])
			if got.Status != c.status {
				t.Errorf("%s: got %s, want %s", c.name, got.Status, c.status)
			}
			checkNullTime(t, c.name+" LastSeenAt", got.LastSeenAt, c.seen)
		}
	}
}

// testSweepBesideFlushes: instances flush liveness and sweep statuses at
// the same time over the same hosts; every write must succeed (a sweep
// that locked rows in another order than MarkSeen deadlocked).
func testSweepBesideFlushes(t *testing.T, s store.Store) {
	ann := owner(t, s, "ann@example.com")
	var seen []hosts.Seen
	for i := range 200 {
		h := createHost(t, s, newHost(ann, fmt.Sprint("h", i), t0))
		seen = append(seen, hosts.Seen{HostID: h.ID, At: t0})
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := range 6 {
		wg.Go(func() {
			for round := range 8 {
				var err error
				if w%2 == 0 {
					err = s.Hosts.MarkSeen(t.Context(), seen)
				} else { // everything seen at t0 is stale and offline by then
					late := t0.Add(time.Duration(round+1) * time.Hour)
					err = s.Hosts.SweepStatus(t.Context(), late, late)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func testSetBanned(t *testing.T, s store.Store) {
	ann := owner(t, s, "ann@example.com")
	h := createHost(t, s, newHost(ann, "a", t0))
	seen := t0.Add(time.Minute)
	must(t, "MarkSeen", s.Hosts.MarkSeen(t.Context(), []hosts.Seen{{HostID: h.ID, At: seen}}))
	h.LastSeenAt, h.LastOnlineAt = &seen, &seen

	ban := entry("admin-1", audit.ActionHostBan, "host")
	before := time.Now()
	got, err := hosts.SetBanned(t.Context(), s.Hosts, h.ID, true, ban)
	must(t, "SetBanned ban", err)
	h.Status = hosts.StatusBanned
	checkHost(t, "SetBanned ban result", got, h)
	entries, _, err := s.Audit.ListAudit(t.Context(), audit.Filter{}, page(50, 0))
	must(t, "ListAudit", err)
	if len(entries) != 1 {
		t.Fatalf("audit rows after a ban: got %d, want 1", len(entries))
	}
	checkEntry(t, entries[0], ban)
	if at := entries[0].CreatedAt; at.Before(stored(before)) || at.After(time.Now()) {
		t.Errorf("audit CreatedAt: got %v, want about now", at)
	}

	got, err = hosts.SetBanned(t.Context(), s.Hosts, h.ID, true, entry("admin-1", audit.ActionHostBan, "host"))
	must(t, "SetBanned ban again", err)
	checkHost(t, "banned twice", got, h)

	got, err = hosts.SetBanned(t.Context(), s.Hosts, h.ID, false, entry("admin-2", audit.ActionHostUnban, "host"))
	must(t, "SetBanned unban", err)
	h.Status = hosts.StatusOffline
	checkHost(t, "SetBanned unban result", got, h)
	after, _ := hostNow(t, s, h.ID)
	checkHost(t, "stored host after unban", after, h)

	// Unbanning a host that is not banned keeps its status.
	must(t, "MarkSeen", s.Hosts.MarkSeen(t.Context(), []hosts.Seen{{HostID: h.ID, At: seen}}))
	got, err = hosts.SetBanned(t.Context(), s.Hosts, h.ID, false, entry("admin-2", audit.ActionHostUnban, "host"))
	must(t, "SetBanned unban of an online host", err)
	if got.Status != hosts.StatusOnline {
		t.Errorf("unbanned online host: got %s, want online", got.Status)
	}
	_, total, err := s.Audit.ListAudit(t.Context(), audit.Filter{}, page(50, 0))
	must(t, "ListAudit", err)
	if total != 4 {
		t.Errorf("audit rows: got %d, want 4, one per SetBanned", total)
	}
}

func testListHosts(t *testing.T, s store.Store) {
	ann, bob := owner(t, s, "ann@example.com"), owner(t, s, "bob@example.org")
	emails := map[string]string{ann: "ann@example.com", bob: "bob@example.org"}
	add := func(own, name, ip, os, version string, status hosts.Status, at time.Time) hosts.Host {
		h := newHost(own, name, at)
		h.PublicIP, h.OS, h.InstalledVersion, h.Status = ip, os, version, status
		return createHost(t, s, h)
	}
	seed := []hosts.Host{
		add(ann, "web-1", "203.0.113.5", "linux 6.1.0", "1.2.0", hosts.StatusPending, t0.Add(1*time.Minute)),
		add(ann, "DB_Primary", "198.51.100.7", "windows 10.0.19045", "1.3.0", hosts.StatusOnline, t0.Add(2*time.Minute)),
		add(bob, "100% uptime", "", "linux", "1.2.0", hosts.StatusOffline, t0.Add(3*time.Minute)),
		add(bob, "Web-2", "203.0.113.50", "", "", hosts.StatusBanned, t0.Add(4*time.Minute)),
		add(bob, "same time", "192.0.2.1", "linuxish 1", "1.3.0", hosts.StatusOnline, t0.Add(4*time.Minute)),
	}
	deleted := add(ann, "deleted web", "203.0.113.5", "linux", "1.2.0", hosts.StatusOnline, t0.Add(5*time.Minute))
	must(t, "DeleteHost", hosts.DeleteHost(t.Context(), s.Hosts, "", deleted.ID, t0, nil))

	newest := slices.Clone(seed)
	slices.SortFunc(newest, func(a, b hosts.Host) int {
		if c := stored(b.CreatedAt).Compare(stored(a.CreatedAt)); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	ids := func(keep ...int) []string { // ids of seed[keep], newest first
		var out []string
		for _, h := range newest {
			for _, k := range keep {
				if h.ID == seed[k].ID {
					out = append(out, h.ID)
				}
			}
		}
		return out
	}
	// sorted is every seed host's id by key, then id, in the direction.
	sorted := func(desc bool, key func(hosts.Host) string) []string {
		hs := slices.Clone(seed)
		slices.SortFunc(hs, func(a, b hosts.Host) int {
			c := cmp.Or(strings.Compare(key(a), key(b)), strings.Compare(a.ID, b.ID))
			if desc {
				return -c
			}
			return c
		})
		out := make([]string, len(hs))
		for i, h := range hs {
			out[i] = h.ID
		}
		return out
	}
	all := ids(0, 1, 2, 3, 4)
	q := func(query string) hosts.Filter {
		return hosts.Filter{Query: query, QueryPrefix: paging.PrefixOnly(query)}
	}
	statuses := func(st ...hosts.Status) hosts.Filter { return hosts.Filter{Statuses: st} }
	for _, c := range []struct {
		name   string
		filter hosts.Filter
		page   paging.Page
		want   []string
		total  int
	}{
		{"all, newest first", hosts.Filter{}, page(50, 0), all, 5},
		{"part of the owner email, case-insensitive", q("EXAMPLE.ORG"), page(50, 0), ids(2, 3, 4), 3},
		{"part of the owner email", q("nn@ex"), page(50, 0), ids(0, 1), 2},
		{"part of the name, case-insensitive", q("wEb"), page(50, 0), ids(0, 3), 2},
		{"host id", q(strings.ToUpper(seed[1].ID)), page(50, 0), ids(1), 1},
		{"part of a host id", q(seed[2].ID[9:23]), page(50, 0), ids(2), 1},
		{"public IP substring", q("203.0.113.5"), page(50, 0), ids(0, 3), 2},
		{"part of the public IP", q("51.100"), page(50, 0), ids(1), 1},
		{"percent is literal", q("0% u"), page(50, 0), ids(2), 1},
		{"percent is no wildcard", q("w%1"), page(50, 0), nil, 0},
		{"underscore is literal", q("b_p"), page(50, 0), ids(1), 1},
		{"underscore is no wildcard", q("w_b"), page(50, 0), nil, 0},
		{"escape character is literal", q("!!!"), page(50, 0), nil, 0},
		{"double quote is literal", q(`"web`), page(50, 0), nil, 0},
		{"deleted host is not found", q("deleted"), page(50, 0), nil, 0},
		{"short query: start of the name", q("wE"), page(50, 0), ids(0, 3), 2},
		{"short query: start of the owner email", q("BO"), page(50, 0), ids(2, 3, 4), 3},
		{"short query: one character", q("s"), page(50, 0), ids(4), 1},
		{"short query: not a part", q("b-"), page(50, 0), nil, 0},
		{"short query: percent is literal", q("%"), page(50, 0), nil, 0},
		{"status", statuses(hosts.StatusOnline), page(50, 0), ids(1, 4), 2},
		{"statuses", statuses(hosts.StatusOnline, hosts.StatusBanned), page(50, 0), ids(1, 3, 4), 3},
		{"status and query", hosts.Filter{Query: "example.org", Statuses: []hosts.Status{hosts.StatusOnline}}, page(50, 0), ids(4), 1},
		{"OS family", hosts.Filter{OS: "linux"}, page(50, 0), ids(0, 2), 2},
		{"OS exact", hosts.Filter{OS: "windows 10.0.19045"}, page(50, 0), ids(1), 1},
		{"OS family of LIKE characters", hosts.Filter{OS: "lin%"}, page(50, 0), nil, 0},
		{"agent version", hosts.Filter{AgentVersion: "1.3.0"}, page(50, 0), ids(1, 4), 2},
		{"agent version is exact", hosts.Filter{AgentVersion: "1.3"}, page(50, 0), nil, 0},
		{"user", hosts.Filter{UserID: ann}, page(50, 0), ids(0, 1), 2},
		{"user and query", hosts.Filter{UserID: bob, Query: "web"}, page(50, 0), ids(3), 1},
		{"sort agent_version", hosts.Filter{Sort: "agent_version"}, page(50, 0),
			sorted(false, func(h hosts.Host) string { return h.InstalledVersion }), 5},
		{"sort -agent_version", hosts.Filter{Sort: "-agent_version"}, page(50, 0),
			sorted(true, func(h hosts.Host) string { return h.InstalledVersion }), 5},
		{"sort -user_email", hosts.Filter{Sort: "-user_email"}, page(50, 0),
			sorted(true, func(h hosts.Host) string { return emails[h.UserID] }), 5},
		{"sort status", hosts.Filter{Sort: "status"}, page(50, 0),
			sorted(false, func(h hosts.Host) string { return string(h.Status) }), 5},
		{"sort created_at", hosts.Filter{Sort: "created_at"}, page(50, 0),
			sorted(false, func(h hosts.Host) string { return fmt.Sprintf("%020d", stored(h.CreatedAt).UnixNano()) }), 5},
		{"sorted page", hosts.Filter{Sort: "agent_version"}, page(2, 2),
			sorted(false, func(h hosts.Host) string { return h.InstalledVersion })[2:4], 5},
		{"page", hosts.Filter{}, page(2, 1), all[1:3], 5},
		{"filtered page", hosts.Filter{UserID: bob}, page(1, 1), ids(2, 3, 4)[1:2], 3},
		{"page past the end", hosts.Filter{}, page(2, 5), nil, 5},
		{"no match", q("zed"), page(50, 0), nil, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, total, err := s.Hosts.ListHosts(t.Context(), c.filter, c.page)
			must(t, "ListHosts", err)
			var gotIDs []string
			for _, h := range got {
				gotIDs = append(gotIDs, h.ID)
			}
			if !slices.Equal(gotIDs, c.want) {
				t.Errorf("hosts: got %v, want %v", gotIDs, c.want)
			}
			if total != c.total {
				t.Errorf("total: got %d, want %d", total, c.total)
			}
		})
	}
	got, _, err := s.Hosts.ListHosts(t.Context(), hosts.Filter{}, page(50, 0))
	must(t, "ListHosts", err)
	for i, a := range got {
		checkHost(t, "listed host", a.Host, newest[i])
		if want := emails[a.UserID]; a.UserEmail != want {
			t.Errorf("listed host %s: got email %q, want %q", a.ID, a.UserEmail, want)
		}
	}
	if _, _, err := s.Hosts.ListHosts(t.Context(), hosts.Filter{Sort: "bid"}, page(50, 0)); err == nil {
		t.Error("ListHosts sorted by an unknown field: no error")
	}
}

// testListHostsLastSeenOrder: never-seen hosts sort as the oldest by
// last_seen_at in the admin list too, as in the owner's.
func testListHostsLastSeenOrder(t *testing.T, s store.Store) {
	ctx := t.Context()
	ann := owner(t, s, "ann@example.com")
	never := createHost(t, s, newHost(ann, "never", t0))
	late := createHost(t, s, newHost(ann, "late", t0))
	early := createHost(t, s, newHost(ann, "early", t0))
	must(t, "RecordHandshake", s.Hosts.RecordHandshake(ctx, late.ID, "", "linux", "1", t0.Add(2*time.Hour)))
	must(t, "RecordHandshake", s.Hosts.RecordHandshake(ctx, early.ID, "", "linux", "1", t0.Add(time.Hour)))
	for sort, want := range map[hosts.AdminSort][]string{
		"last_seen_at":  {never.ID, early.ID, late.ID},
		"-last_seen_at": {late.ID, early.ID, never.ID},
	} {
		got, _, err := s.Hosts.ListHosts(ctx, hosts.Filter{Sort: sort}, page(50, 0))
		must(t, "ListHosts", err)
		var ids []string
		for _, h := range got {
			ids = append(ids, h.ID)
		}
		if !slices.Equal(ids, want) {
			t.Errorf("sort %s: got %v, want %v", sort, ids, want)
		}
	}
}

// testSearchIndexSync: the search finds a host by what it is now, after
// every write that changes a searched column, never by what it was, on
// every path (admin list, owner's list) and both query lengths.
func testSearchIndexSync(t *testing.T, s store.Store) {
	ctx := t.Context()
	ann := owner(t, s, "ann@example.com")
	h := createHost(t, s, newHost(ann, "alpha-box", t0))
	find := func(query string) []string {
		t.Helper()
		got, total, err := s.Hosts.ListHosts(ctx, hosts.Filter{Query: query, QueryPrefix: paging.PrefixOnly(query)}, page(50, 0))
		must(t, "ListHosts", err)
		var ids []string
		for _, a := range got {
			ids = append(ids, a.ID)
		}
		if total != len(ids) {
			t.Errorf("q %q: total %d, items %d", query, total, len(ids))
		}
		return ids
	}
	findOwned := func(query string) []string {
		t.Helper()
		got, _, err := s.Hosts.PageOwnedHosts(ctx, ann, hosts.OwnedFilter{Query: query, QueryPrefix: paging.PrefixOnly(query)}, page(50, 0))
		must(t, "PageOwnedHosts", err)
		var ids []string
		for _, a := range got {
			ids = append(ids, a.ID)
		}
		return ids
	}
	expect := func(what string, got []string, found bool) {
		t.Helper()
		if want := slices.Equal(got, []string{h.ID}); want != found || (!found && len(got) > 0) {
			t.Errorf("%s: got %v, want found=%v", what, got, found)
		}
	}
	expect("new host by name", find("pha-b"), true)
	expect("new host by name, owner", findOwned("pha-b"), true)

	_, err := s.Hosts.UpdateHost(ctx, ann, h.ID, "omega-node", hosts.DefaultListenPort)
	must(t, "UpdateHost", err)
	expect("renamed: old name", find("pha-b"), false)
	expect("renamed: old name, owner", findOwned("pha-b"), false)
	expect("renamed: old name, short", find("al"), false)
	expect("renamed: new name", find("ega-no"), true)
	expect("renamed: new name, owner", findOwned("ega-no"), true)
	expect("renamed: new name, short", findOwned("om"), true)

	must(t, "RecordHandshake", s.Hosts.RecordHandshake(ctx, h.ID, "198.51.100.23", "linux", "1.0.0", t0))
	expect("IP set", find("100.23"), true)
	must(t, "RecordHandshake", s.Hosts.RecordHandshake(ctx, h.ID, "203.0.113.77", "linux", "1.0.0", t0))
	expect("IP changed: old IP", find("100.23"), false)
	expect("IP changed: new IP", find("113.77"), true)
	must(t, "RecordHandshake", s.Hosts.RecordHandshake(ctx, h.ID, "203.0.113.77", "linux", "1.0.1", t0))
	expect("IP unchanged", find("113.77"), true)

	must(t, "DeleteHost", hosts.DeleteHost(ctx, s.Hosts, ann, h.ID, t0, nil))
	expect("deleted: by name", find("ega-no"), false)
	expect("deleted: by name, owner", findOwned("ega-no"), false)
	expect("deleted: by IP", find("113.77"), false)
	expect("deleted: by owner email", find("ann@ex"), false)
	expect("deleted: short", find("om"), false)

	// A new host of the same name is found, the deleted one never again.
	h = createHost(t, s, newHost(ann, "omega-node", t0))
	expect("new host of a deleted host's name", find("ega-no"), true)
}

func testCountHosts(t *testing.T, s store.Store) {
	want := map[hosts.Status]int{
		hosts.StatusPending: 0, hosts.StatusOnline: 0, hosts.StatusStale: 0, hosts.StatusOffline: 0, hosts.StatusBanned: 0,
	}
	counts, err := s.Hosts.CountHosts(t.Context())
	must(t, "CountHosts of no hosts", err)
	if !maps.Equal(counts, want) {
		t.Errorf("CountHosts of no hosts: got %v, want %v", counts, want)
	}
	ann := owner(t, s, "ann@example.com")
	for i, st := range []hosts.Status{hosts.StatusPending, hosts.StatusOnline, hosts.StatusOnline, hosts.StatusBanned, hosts.StatusOnline} {
		h := newHost(ann, fmt.Sprint("h", i), t0)
		h.Status = st
		createHost(t, s, h)
		if i == 4 {
			must(t, "DeleteHost", hosts.DeleteHost(t.Context(), s.Hosts, ann, h.ID, t0, nil))
			continue
		}
		want[st]++
	}
	counts, err = s.Hosts.CountHosts(t.Context())
	must(t, "CountHosts", err)
	if !maps.Equal(counts, want) {
		t.Errorf("CountHosts: got %v, want %v", counts, want)
	}
}

func testMetricsHistory(t *testing.T, s store.Store) {
	ann := owner(t, s, "ann@example.com")
	h := createHost(t, s, newHost(ann, "a", t0))
	other := createHost(t, s, newHost(ann, "b", t0))
	const keep = 5
	sample := func(i int, at time.Time) hosts.Metrics {
		return hosts.Metrics{At: at, CPUPct: float64(i) + 0.25, MemPct: 99.5, DiskPct: 1e-3 * float64(i),
			NetRxBps: 1.5e9 + float64(i), NetTxBps: 0, TCPConns: int64(i), UptimeS: 1<<40 + int64(i)}
	}
	var appended []hosts.Metrics
	for i := range keep + 3 {
		m := sample(i, t0.Add(time.Duration(i)*time.Minute))
		appendTrimmed(t, s, h.ID, m, keep)
		appended = append(appended, m)
	}
	for i := range 3 {
		appendTrimmed(t, s, other.ID, sample(100+i, t0), keep)
	}
	newest := slices.Clone(appended[3:])
	slices.Reverse(newest)
	checkMetrics(t, s, h.ID, 50, newest)
	checkMetrics(t, s, h.ID, 2, newest[:2])
	if m, err := s.Hosts.ListMetrics(t.Context(), other.ID, 50); err != nil || len(m) != 3 {
		t.Errorf("other host's samples: got %d, %v; want 3, untouched", len(m), err)
	}

	// A sample older than the kept ones is dropped at once; two at one
	// time are kept newest (last appended) first.
	appendTrimmed(t, s, h.ID, sample(50, t0.Add(-time.Hour)), keep)
	checkMetrics(t, s, h.ID, 50, newest)
	tie := t0.Add(time.Hour)
	first, second := sample(60, tie), sample(61, tie)
	appendTrimmed(t, s, h.ID, first, keep)
	appendTrimmed(t, s, h.ID, second, keep)
	checkMetrics(t, s, h.ID, 50, append([]hosts.Metrics{second, first}, newest[:3]...))

	if m, err := s.Hosts.ListMetrics(t.Context(), newID(), 50); err != nil || len(m) != 0 {
		t.Errorf("ListMetrics of an unknown host: got %d, %v; want none", len(m), err)
	}
}

// appendTrimmed appends one sample that asks for a trim.
func appendTrimmed(t *testing.T, s store.Store, hostID string, m hosts.Metrics, keep int) {
	t.Helper()
	must(t, "AppendMetrics", s.Hosts.AppendMetrics(t.Context(), []hosts.Sample{{HostID: hostID, Metrics: m, Trim: true}}, keep))
}

// testMetricsBatch: one batch for several hosts, an unknown one among
// them, trimming only the hosts whose sample asks for it.
func testMetricsBatch(t *testing.T, s store.Store) {
	ann := owner(t, s, "ann@example.com")
	a := createHost(t, s, newHost(ann, "a", t0))
	b := createHost(t, s, newHost(ann, "b", t0))
	const keep = 3
	for i := range 5 {
		m := hosts.Metrics{At: t0.Add(time.Duration(i) * time.Minute), CPUPct: float64(i)}
		must(t, "AppendMetrics", s.Hosts.AppendMetrics(t.Context(), []hosts.Sample{
			{HostID: a.ID, Metrics: m}, {HostID: newID(), Metrics: m}, {HostID: b.ID, Metrics: m},
		}, keep))
	}
	for _, h := range []hosts.Host{a, b} {
		if got, err := s.Hosts.ListMetrics(t.Context(), h.ID, 50); err != nil || len(got) != 5 {
			t.Fatalf("untrimmed history: got %d samples, %v; want all 5", len(got), err)
		}
	}
	last := hosts.Metrics{At: t0.Add(time.Hour), CPUPct: 9}
	must(t, "AppendMetrics", s.Hosts.AppendMetrics(t.Context(), []hosts.Sample{
		{HostID: a.ID, Metrics: last, Trim: true}, {HostID: b.ID, Metrics: last},
	}, keep))
	got, err := s.Hosts.ListMetrics(t.Context(), a.ID, 50)
	must(t, "ListMetrics", err)
	if len(got) != keep || got[0].CPUPct != 9 || got[1].CPUPct != 4 || got[2].CPUPct != 3 {
		t.Errorf("trimmed host: got %+v, want the newest %d (9, 4, 3)", got, keep)
	}
	if got, err := s.Hosts.ListMetrics(t.Context(), b.ID, 50); err != nil || len(got) != 6 {
		t.Errorf("host without a trim: got %d samples, %v; want 6", len(got), err)
	}
	must(t, "AppendMetrics of nothing", s.Hosts.AppendMetrics(t.Context(), nil, keep))
}

func checkMetrics(t *testing.T, s store.Store, hostID string, limit int, want []hosts.Metrics) {
	t.Helper()
	got, err := s.Hosts.ListMetrics(t.Context(), hostID, limit)
	must(t, "ListMetrics", err)
	if len(got) != len(want) {
		t.Fatalf("ListMetrics(%d): got %d samples, want %d", limit, len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		checkTime(t, "sample At", g.At, w.At)
		g.At, w.At = time.Time{}, time.Time{}
		if g != w {
			t.Errorf("sample %d: got %+v, want %+v", i, g, w)
		}
	}
}

func testEventsHistory(t *testing.T, s store.Store) {
	ann := owner(t, s, "ann@example.com")
	h := createHost(t, s, newHost(ann, "a", t0))
	other := createHost(t, s, newHost(ann, "b", t0))
	const keep = 4
	var appended []hosts.Event
	for i := range keep + 2 {
		e := hosts.Event{At: t0.Add(time.Duration(i) * time.Second), Kind: fmt.Sprint("kind ", i), Message: fmt.Sprintf("message %d: é ✓", i)}
		must(t, "AppendEvent", s.Hosts.AppendEvent(t.Context(), h.ID, e, keep))
		appended = append(appended, e)
	}
	must(t, "AppendEvent other", s.Hosts.AppendEvent(t.Context(), other.ID, hosts.Event{At: t0, Kind: "other"}, keep))
	want := slices.Clone(appended[2:])
	slices.Reverse(want)
	got, err := s.Hosts.ListEvents(t.Context(), h.ID, 50)
	must(t, "ListEvents", err)
	if len(got) != len(want) {
		t.Fatalf("ListEvents: got %d events, want %d", len(got), len(want))
	}
	seen := map[string]bool{}
	for i := range got {
		id, err := uuid.Parse(got[i].ID)
		if err != nil || id.Version() != 4 {
			t.Errorf("event ID %q: %v, want a version 4 UUID", got[i].ID, err)
		}
		if seen[got[i].ID] {
			t.Errorf("event ID %q repeated", got[i].ID)
		}
		seen[got[i].ID] = true
		checkTime(t, "event At", got[i].At, want[i].At)
		if got[i].Kind != want[i].Kind || got[i].Message != want[i].Message {
			t.Errorf("event %d: got %q %q, want %q %q", i, got[i].Kind, got[i].Message, want[i].Kind, want[i].Message)
		}
	}
	if got, err := s.Hosts.ListEvents(t.Context(), h.ID, 1); err != nil || len(got) != 1 || got[0].Kind != want[0].Kind {
		t.Errorf("ListEvents(1): got %+v, %v; want the newest, %q", got, err, want[0].Kind)
	}
	if got, err := s.Hosts.ListEvents(t.Context(), other.ID, 50); err != nil || len(got) != 1 {
		t.Errorf("other host's events: got %d, %v; want 1, untouched", len(got), err)
	}
}

// testEventsBatch: one batch for several hosts, in order, an unknown and a
// deleted host among them, each host trimmed to keep.
func testEventsBatch(t *testing.T, s store.Store) {
	ann := owner(t, s, "ann@example.com")
	a := createHost(t, s, newHost(ann, "a", t0))
	b := createHost(t, s, newHost(ann, "b", t0))
	untrimmed := createHost(t, s, newHost(ann, "untrimmed", t0))
	gone := createHost(t, s, newHost(ann, "gone", t0))
	must(t, "DeleteHost", hosts.DeleteHost(t.Context(), s.Hosts, ann, gone.ID, t0, nil))
	const keep = 3
	var batch []hosts.HostEvent
	for i := range 5 {
		// Events of one instant keep their batch order.
		e := hosts.Event{At: t0.Add(time.Duration(i/2) * time.Second), Kind: fmt.Sprint("connected ", i), Message: "é ✓"}
		batch = append(batch, hosts.HostEvent{HostID: a.ID, Event: e, Trim: i == 1}, hosts.HostEvent{HostID: newID(), Event: e},
			hosts.HostEvent{HostID: gone.ID, Event: e}, hosts.HostEvent{HostID: untrimmed.ID, Event: e})
	}
	batch = append(batch, hosts.HostEvent{HostID: b.ID, Event: hosts.Event{At: t0, Kind: "disconnected"}, Trim: true})
	must(t, "AppendEvents", s.Hosts.AppendEvents(t.Context(), batch, keep))
	got, err := s.Hosts.ListEvents(t.Context(), a.ID, 50)
	must(t, "ListEvents", err)
	var kinds []string
	for _, e := range got {
		kinds = append(kinds, e.Kind)
		if e.ID == "" || e.Message != "é ✓" {
			t.Errorf("event %+v: want an id and the message", e)
		}
	}
	if want := []string{"connected 4", "connected 3", "connected 2"}; !slices.Equal(kinds, want) {
		t.Errorf("host a: %v, want the newest %d in order %v", kinds, keep, want)
	}
	if got, err := s.Hosts.ListEvents(t.Context(), untrimmed.ID, 50); err != nil || len(got) != 5 {
		t.Errorf("host without a trim: %d events, %v; want all 5", len(got), err)
	}
	if got, err := s.Hosts.ListEvents(t.Context(), b.ID, 50); err != nil || len(got) != 1 || got[0].Kind != "disconnected" {
		t.Errorf("host b: %+v, %v", got, err)
	}
	if got, err := s.Hosts.ListEvents(t.Context(), gone.ID, 50); err != nil || len(got) != 0 {
		t.Errorf("deleted host: %+v, %v; want none", got, err)
	}
	must(t, "AppendEvents of nothing", s.Hosts.AppendEvents(t.Context(), nil, keep))
}
