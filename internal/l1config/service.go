package l1config

import (
	"cmp"
	"context"
	"crypto/hmac"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"hostgate/internal/agentproto"
	"hostgate/internal/deliveries"
	"hostgate/internal/hosts"
	"hostgate/internal/webhooks"
)

// Agents reaches hosts' agents; *dispatch.Dispatcher is one.
type Agents interface {
	Online(ctx context.Context, hostID string) (bool, error)
	Send(ctx context.Context, hostID, op string, args json.RawMessage, timeout time.Duration) (agentproto.Response, error)
}

// Waker is told when a delivery has been committed; *deliveries.Worker is one.
type Waker interface{ Wake() }

// SettingsTimeout bounds the asynchronous SettingsUpdate to an agent.
const SettingsTimeout = 30 * time.Second

// Service carries out L1 configuration writes.
type Service struct {
	store        Store
	sealer       deliveries.Sealer
	agents       Agents
	worker       Waker
	allowPrivate bool
	log          *slog.Logger
	now          func() time.Time
}

// NewService wires the service. allowPrivate is HOSTGATE_WEBHOOK_ALLOW_PRIVATE.
func NewService(st Store, sealer deliveries.Sealer, agents Agents, worker Waker, allowPrivate bool, log *slog.Logger) *Service {
	return &Service{store: st, sealer: sealer, agents: agents, worker: worker, allowPrivate: allowPrivate, log: log, now: time.Now}
}

// Who is the entry and the actor of a change.
type Who struct {
	Source webhooks.Source
	Actor  webhooks.Actor
}

// L1ConfigPutResp is the answer of an L1 configuration write, plus the
// host's webhook format.
type L1ConfigPutResp struct {
	BID           int64  `json:"bid"`
	HasSecretKey  bool   `json:"has_secret_key" doc:"The secret itself is not returned"`
	URL           string `json:"url"`
	AgentOnline   bool   `json:"agent_online" doc:"Whether the agent was online after the write (then SettingsUpdate is sent)"`
	DeliveryID    string `json:"delivery_id,omitempty" doc:"Id of the queued webhook delivery"`
	WebhookFormat string `json:"webhook_format" doc:"A or B (hostgate addition)"`
}

// Validate checks r as Update will, without touching anything.
func (s *Service) Validate(r Request) error { return Validate(r, s.allowPrivate) }

// Update writes r to the host (the owner's; any owner's for owner "", the
// agent entry) and queues its webhook delivery in the same transaction,
// signed with the secret r replaces. After the commit it wakes the
// delivery worker and, when the agent is online and the change did not
// come from the agent itself, sends it SettingsUpdate asynchronously.
func (s *Service) Update(ctx context.Context, owner, hostID string, who Who, r Request) (L1ConfigPutResp, error) {
	if err := s.Validate(r); err != nil {
		return L1ConfigPutResp{}, err
	}
	var deliveryID string
	h, err := UpdateL1(ctx, s.store, owner, hostID, func(h hosts.Host, sec hosts.Secrets) (Change, deliveries.Delivery, error) {
		ch := Change{BID: r.BID, ReportURL: r.URL, WebhookFormat: cmp.Or(r.WebhookFormat, h.WebhookFormat, hosts.DefaultWebhookFormat),
			SecretSealed: s.sealer.Seal([]byte(r.SecretKey), []byte(h.ID))}
		prev, err := s.sealer.Open(sec.SecretSealed, []byte(h.ID))
		if err != nil {
			return Change{}, deliveries.Delivery{}, fmt.Errorf("l1config: open secret of host %s: %w", h.ID, err)
		}
		d, err := s.delivery(h, ch, webhooks.Secret(prev), r.SecretKey, who)
		deliveryID = d.ID
		return ch, d, err
	})
	if err != nil {
		return L1ConfigPutResp{}, mapStoreError(err)
	}
	s.worker.Wake()
	online, err := s.agents.Online(ctx, h.ID)
	if err != nil {
		s.log.WarnContext(ctx, "l1 config: agent presence", "host_id", h.ID, "err", err)
	}
	if online && who.Source != webhooks.SourceAgent {
		s.sendSettings(ctx, h.ID, agentproto.SettingsUpdate{BID: h.BID, SecretKey: r.SecretKey, URL: h.ReportURL})
	}
	return L1ConfigPutResp{BID: h.BID, HasSecretKey: true, URL: h.ReportURL, AgentOnline: online,
		DeliveryID: deliveryID, WebhookFormat: h.WebhookFormat}, nil
}

var _ hosts.SecretRotator = (*Service)(nil)

// RotateIssue implements hosts.SecretRotator: a rotate-secret changes the
// host's secret, so it is an L1 configuration change and queues a webhook
// delivery like any other (bid and report URL unchanged, signed with the
// secret it replaces); otherwise the receiver's chain of secrets would
// break. No SettingsUpdate is sent: a rotation drops the agent, which
// must be installed again with the new credentials.
func (s *Service) RotateIssue(ctx context.Context, owner, id string, iss hosts.Issuance, by hosts.ChangedBy) (hosts.Host, hosts.Secrets, error) {
	who := Who{Source: webhooks.Source(by.Source), Actor: webhooks.Actor{Kind: by.Kind, ID: by.ID, IP: by.IP}}
	h, sec, err := RotateSecret(ctx, s.store, owner, id, iss, func(h hosts.Host, sec hosts.Secrets) (deliveries.Delivery, error) {
		secret, err := s.sealer.Open(iss.SecretSealed, []byte(h.ID))
		if err != nil {
			return deliveries.Delivery{}, fmt.Errorf("l1config: open new secret of host %s: %w", h.ID, err)
		}
		prev, err := s.sealer.Open(sec.SecretSealed, []byte(h.ID))
		if err != nil {
			return deliveries.Delivery{}, fmt.Errorf("l1config: open secret of host %s: %w", h.ID, err)
		}
		ch := Change{BID: h.BID, ReportURL: h.ReportURL, WebhookFormat: cmp.Or(h.WebhookFormat, hosts.DefaultWebhookFormat)}
		return s.delivery(h, ch, webhooks.Secret(prev), string(secret), who)
	})
	if err != nil {
		return hosts.Host{}, hosts.Secrets{}, err
	}
	s.worker.Wake()
	return h, sec, nil
}

// delivery builds the queued delivery of change ch to host h (the row as
// it was before the change).
func (s *Service) delivery(h hosts.Host, ch Change, prev webhooks.Secret, secret string, who Who) (deliveries.Delivery, error) {
	f, err := webhooks.ParseFormat(ch.WebhookFormat)
	if err != nil {
		return deliveries.Delivery{}, err
	}
	now := s.now().UTC().Truncate(time.Microsecond)
	e := webhooks.Event{
		DeliveryID: uuid.NewString(), UserID: h.UserID, HostID: h.ID, HostName: h.Name,
		Source: who.Source, OccurredAt: now, ChangedBy: who.Actor,
		Before:    webhooks.Before{BID: h.BID, ReportURL: h.ReportURL},
		After:     webhooks.After{BID: ch.BID, SecretKey: webhooks.Secret(secret), ReportURL: ch.ReportURL},
		TargetURL: ch.ReportURL, SigningKey: prev,
	}
	return deliveries.New(e, f, s.sealer, now)
}

// Reconcile is told the settings fingerprint an agent said hello with
// (agentproto.Hello.SettingsFP) and sends it the host's settings when they
// differ: a change made while the agent was offline, or one it failed to
// apply, reaches it at its next connection. An agent that sends no
// fingerprint is left alone: it either has no L1 settings or predates the
// fingerprint, and sending it settings at every connection could loop.
func (s *Service) Reconcile(ctx context.Context, hostID, fingerprint string) {
	if fingerprint == "" {
		return
	}
	h, sec, err := s.store.HostByID(ctx, hostID)
	if err != nil {
		s.log.WarnContext(ctx, "l1 config: read host for settings check", "host_id", hostID, "err", err)
		return
	}
	secret, err := s.sealer.Open(sec.SecretSealed, []byte(h.ID))
	if err != nil {
		s.log.ErrorContext(ctx, "l1 config: open secret for settings check", "host_id", hostID, "err", err)
		return
	}
	want := agentproto.SettingsUpdate{BID: h.BID, SecretKey: string(secret), URL: h.ReportURL}
	if hmac.Equal([]byte(want.Fingerprint()), []byte(fingerprint)) {
		return
	}
	s.log.InfoContext(ctx, "l1 config: the agent's settings are out of date; sending them", "host_id", hostID)
	s.sendSettings(ctx, hostID, want)
}

// sendSettings tells the online agent its new settings, without waiting:
// the write has committed whatever the agent answers.
func (s *Service) sendSettings(ctx context.Context, hostID string, u agentproto.SettingsUpdate) {
	args, _ := json.Marshal(u)
	op := opSettingsUpdate()
	go func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), SettingsTimeout)
		defer cancel()
		resp, err := s.agents.Send(ctx, hostID, op, args, SettingsTimeout)
		if err != nil || !resp.OK {
			s.log.Warn("l1 config: settings update not applied by the agent", "host_id", hostID, "err", err)
		}
	}()
}

// opSettingsUpdate is the op name of CtlSettingsUpdate.
func opSettingsUpdate() string {
	c, _ := agentproto.ControlByValue(agentproto.CtlSettingsUpdate)
	return c.Op
}
