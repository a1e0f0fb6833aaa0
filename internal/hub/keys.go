package hub

import (
	"context"
	"log/slog"

	"hostgate/internal/keyring"
	"hostgate/internal/store"
)

// openKeys returns cfg's keyring: the current keys from the environment (or
// the store) with the accepted ones.
func openKeys(ctx context.Context, cfg Config, st keyring.Store) (*keyring.Keyring, error) {
	keys, err := keyring.Load(ctx, st, cfg.SigningKey, cfg.SealingKey)
	if err != nil {
		return nil, err
	}
	return keys.Accept(cfg.SigningKeysAccepted, cfg.SealingKeysAccepted)
}

// Reseal re-seals every sealed value in the store under cfg's current
// sealing key (`hostgate keys reseal`), opening them with the current or an
// accepted key. It runs beside serving hubs: each batch is one ordinary
// store transaction and never overwrites a value changed meanwhile.
func Reseal(ctx context.Context, cfg Config, log *slog.Logger) (map[string]keyring.ResealCounts, error) {
	st, err := store.Open(ctx, cfg.DatabaseURL, cfg.DataDir, log)
	if err != nil {
		return nil, storeError(cfg, err)
	}
	defer st.Close()
	keys, err := openKeys(ctx, cfg, st.Keys)
	if err != nil {
		return nil, err
	}
	return keyring.Reseal(ctx, st.Reseal, keys)
}
