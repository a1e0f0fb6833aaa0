package agent

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"

	"hostgate/internal/agentproto"
)

// Key protection (interface specification, rules for template images,
// rule 2): the installers write the ed25519 seed in plaintext into the
// setup file, and the agent wraps it with the machine's own protection at
// its first start. On Windows that is DPAPI in machine scope: the seed is
// sealed, written back into the setup file as agent_privkey_sealed (with
// key_protection naming the scheme) and the plaintext agent_privkey_seed
// is removed, the file replaced atomically. Later starts unseal it. A
// failure to protect degrades to the plaintext seed with a warning (the
// spec's installer code 22) and never stops the agent. Elsewhere there is
// no machine key: the seed stays in the setup file, which must be
// readable by its owner only (0600); the agent tightens a wider mode at
// start and says so.

// KeyProtectionDPAPI is the key_protection of a seed sealed with DPAPI in
// machine scope (CryptProtectData with CRYPTPROTECT_LOCAL_MACHINE).
const KeyProtectionDPAPI = "dpapi-machine"

// KeySealer seals the agent's private key seed to this machine.
type KeySealer interface {
	// Scheme names the protection, as key_protection records it.
	Scheme() string
	// Seal wraps plain; entropy must be given again to unseal.
	Seal(plain, entropy []byte) ([]byte, error)
	// Unseal returns the plaintext of sealed.
	Unseal(sealed, entropy []byte) ([]byte, error)
}

// DefaultKeySealer is the machine's key protection: DPAPI in machine
// scope on Windows, nil (none) elsewhere.
func DefaultKeySealer() KeySealer { return platformKeySealer() }

// keyEntropy binds a sealed seed to its host: a blob copied into the
// setup file of another host does not unseal.
func keyEntropy(hostID string) []byte {
	return []byte("hostgate agent key v1\n" + hostID)
}

func (c Config) sealer() KeySealer {
	if c.KeySealer != nil {
		return c.KeySealer
	}
	return DefaultKeySealer()
}

// unsealSeed returns the plaintext seed (base64) of c.AgentPrivkeySealed.
// Its errors never contain key material.
func (c Config) unsealSeed(hostID string) (string, error) {
	sealer := c.sealer()
	switch {
	case c.KeyProtection == "":
		return "", errors.New("key_protection is missing")
	case sealer == nil || sealer.Scheme() != c.KeyProtection:
		return "", fmt.Errorf("sealed with %q, which this machine does not provide; "+
			"install the host again with new credentials", c.KeyProtection)
	}
	blob, err := decodeBase64(c.AgentPrivkeySealed)
	if err != nil {
		return "", err
	}
	plain, err := sealer.Unseal(blob, keyEntropy(hostID))
	if err != nil {
		return "", fmt.Errorf("cannot be unsealed on this machine (%v); install the host again with new credentials", err)
	}
	defer clear(plain)
	return base64.StdEncoding.EncodeToString(plain), nil
}

// protectKey runs at start with the setup file the agent was started
// with: it seals a plaintext seed found there (when the machine has a
// sealer), and on Unix tightens the file's mode to 0600. Nothing here
// stops the agent: every failure is a warning, and the seed already in
// memory is used either way.
func (s *settings) protectKey(log *slog.Logger) {
	path := s.SetupFile
	if path == "" {
		return
	}
	tightenSetupFile(path, log)
	if s.AgentPrivkeySeed == "" {
		return // started from the sealed seed
	}
	sealer := s.sealer()
	if sealer == nil {
		return
	}
	switch err := sealSetupFile(path, s.hostID, s.key.Seed(), sealer); {
	case errors.Is(err, errSeedElsewhere):
		log.Debug("key protection skipped: the seed in use did not come from the setup file", "setup_file", path)
	case err != nil:
		log.Warn("key protection failed (installer code 22): the private key seed stays in plaintext in the setup file",
			"setup_file", path, "key_protection", sealer.Scheme(), "err", err)
	default:
		log.Info("private key sealed to this machine; the plaintext seed was removed from the setup file",
			"setup_file", path, "key_protection", sealer.Scheme())
	}
}

// errSeedElsewhere: the setup file's seed is not the one in use (it came
// from a flag), so there is nothing of ours to seal there.
var errSeedElsewhere = errors.New("the setup file does not hold the seed in use")

// sealSetupFile replaces the plaintext seed in the setup file at path by
// its sealed form, keeping every other key, through agentproto.Rewrite.
// It checks that the sealed form unseals to seed before it writes.
func sealSetupFile(path, hostID string, seed []byte, sealer KeySealer) error {
	return agentproto.Rewrite(path, func(s *agentproto.Setup) error {
		if s.AgentPrivkeySeed == "" {
			return errSeedElsewhere
		}
		fileSeed, err := decodeBase64(s.AgentPrivkeySeed)
		if err != nil || !bytes.Equal(fileSeed, seed) {
			return errSeedElsewhere
		}
		clear(fileSeed)
		entropy := keyEntropy(hostID)
		sealed, err := sealer.Seal(seed, entropy)
		if err != nil {
			return fmt.Errorf("seal: %w", err)
		}
		back, err := sealer.Unseal(sealed, entropy)
		if err != nil || !bytes.Equal(back, seed) {
			return errors.New("the sealed seed does not unseal to the seed")
		}
		clear(back)
		s.AgentPrivkeySeed = ""
		s.AgentPrivkeySealed = base64.StdEncoding.EncodeToString(sealed)
		s.KeyProtection = sealer.Scheme()
		return nil
	}, keepACL(path))
}
