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
	"hostgate/internal/deliveries"
	"hostgate/internal/hosts"
	"hostgate/internal/keyring"
	"hostgate/internal/l1config"
	"hostgate/internal/l1gate"
	"hostgate/internal/lockout"
	"hostgate/internal/upgrades"
	"hostgate/internal/versions"
)

// Store is everything the hub keeps durably.
type Store interface {
	apikeys.Store
	audit.Store
	deliveries.Store
	l1gate.Store
	lockout.Store
	keyring.Store
	keyring.ResealStore

	// Accounts is the users' and sessions' storage.
	Accounts() accounts.Store
	// Admins is the admins' storage.
	Admins() admin.Store
	// Billing is the billing storage: balances, events, rules, the mode
	// and recharge orders.
	Billing() billing.Storage

	// Hosts is the hosts' storage.
	Hosts() hosts.Store
	// L1Config is the storage of the hosts' L1 configuration.
	L1Config() l1config.Store
	// Upgrades is the hosts' upgrades' storage.
	Upgrades() upgrades.Store
	// Versions is the published agent versions' storage.
	Versions() versions.Store

	// Ping checks the database; /readyz reports its error text.
	Ping(ctx context.Context) error
	// Name names the engine: "postgres" or "sqlite".
	Name() string
	// PoolStats reports the connection pools' statistics, by pool.
	PoolStats() map[string]sql.DBStats
	Close() error
}
