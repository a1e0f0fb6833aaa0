// Package store composes the storage interfaces the domain packages declare
// into the one Store a hub opens, and opens it: PostgreSQL for a
// postgres:// URL, otherwise an SQLite file in the data directory.
//
// Both engines share one implementation (package sqldb) that differs only in
// its dialect; both pass one contract suite (package storetest).
package store

import (
	"context"
	"database/sql"

	"hostgate/internal/accounts"
	"hostgate/internal/admin"
	"hostgate/internal/apikeys"
	"hostgate/internal/audit"
	"hostgate/internal/billing"
	"hostgate/internal/dashboard"
	"hostgate/internal/deliveries"
	"hostgate/internal/hosts"
	"hostgate/internal/jobs"
	"hostgate/internal/keyring"
	"hostgate/internal/l1config"
	"hostgate/internal/l1gate"
	"hostgate/internal/lockout"
	"hostgate/internal/schedules"
	"hostgate/internal/store/sqldb"
	"hostgate/internal/upgrades"
	"hostgate/internal/versions"
)

// Store is everything the hub keeps durably: one narrow storage per
// domain, all over one database. Its zero value holds nothing; Close on it
// does nothing.
type Store struct {
	// Accounts is the users' and sessions' storage.
	Accounts accounts.Store
	// Admins is the admins' storage.
	Admins admin.Store
	// APIKeys is the client API keys' storage.
	APIKeys apikeys.Store
	// Audit is the audit log.
	Audit audit.Store
	// Billing is the billing storage: balances, events, rules, the mode
	// and recharge orders.
	Billing billing.Storage
	// Dashboard is the fleet samples of the admin dashboard.
	Dashboard dashboard.Store
	// Deliveries is the webhook delivery queue.
	Deliveries deliveries.Store
	// Hosts is the hosts' storage.
	Hosts hosts.Store
	// Keys keeps the server key; Reseal re-seals sealed values.
	Keys   keyring.Store
	Reseal keyring.ResealStore
	// Jobs is the jobs' storage.
	Jobs jobs.Store
	// L1Config is the storage of the hosts' L1 configuration.
	L1Config l1config.Store
	// L1Gate is the L1 gate's storage (hosts by bid, nonces).
	L1Gate l1gate.Store
	// Lockout is the login lockouts' storage.
	Lockout lockout.Store
	// Schedules is the users' schedules and their run history.
	Schedules schedules.Store
	// Upgrades is the hosts' upgrades' storage.
	Upgrades upgrades.Store
	// Versions is the published agent versions' storage.
	Versions versions.Store

	db *sqldb.DB
}

// New returns the store over db, which it owns: Close closes it.
func New(db *sqldb.DB) Store {
	return Store{
		Accounts: db.Accounts(), Admins: db.Admins(), APIKeys: db.APIKeys(), Audit: db.Audit(), Billing: db.Billing(), Dashboard: db.Dashboard(), Deliveries: db.Deliveries(),
		Hosts: db.Hosts(), Jobs: db.Jobs(), Keys: db.Keys(), Reseal: db.Reseal(), L1Config: db.L1Config(), L1Gate: db.L1Gate(), Lockout: db.Lockout(),
		Schedules: db.Schedules(), Upgrades: db.Upgrades(), Versions: db.Versions(), db: db,
	}
}

// Ping checks the database; /readyz reports its error text.
func (s Store) Ping(ctx context.Context) error { return s.db.Ping(ctx) }

// Name names the engine: "postgres" or "sqlite".
func (s Store) Name() string { return s.db.Name() }

// PoolStats reports the connection pools' statistics, by pool.
func (s Store) PoolStats() map[string]sql.DBStats { return s.db.PoolStats() }

// Close closes the database.
func (s Store) Close() error {
	if s.db == nil {
		return nil
	}
	return s.db.Close()
}
