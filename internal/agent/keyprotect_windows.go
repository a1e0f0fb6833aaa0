package agent

import (
	"fmt"
	"log/slog"
	"unsafe"

	"golang.org/x/sys/windows"
)

func platformKeySealer() KeySealer { return DPAPISealer{} }

// tightenSetupFile has nothing to do on Windows: the installer gives the
// setup file an ACL for SYSTEM and Administrators only, and rewrites keep
// it (writeFileAtomic copies the ACL).
func tightenSetupFile(string, *slog.Logger) {}

// DPAPISealer seals with DPAPI in machine scope: any process on this
// machine can unseal, none elsewhere; the setup file's ACL keeps other
// accounts from reading the blob.
type DPAPISealer struct{}

// Scheme is KeyProtectionDPAPI.
func (DPAPISealer) Scheme() string { return KeyProtectionDPAPI }

// Seal calls CryptProtectData with CRYPTPROTECT_LOCAL_MACHINE.
func (DPAPISealer) Seal(plain, entropy []byte) ([]byte, error) {
	in, ent := dataBlob(plain), dataBlob(entropy)
	desc, _ := windows.UTF16PtrFromString("hostgate agent key")
	var out windows.DataBlob
	if err := windows.CryptProtectData(&in, desc, &ent, 0, nil,
		windows.CRYPTPROTECT_LOCAL_MACHINE|windows.CRYPTPROTECT_UI_FORBIDDEN, &out); err != nil {
		return nil, fmt.Errorf("CryptProtectData: %w", err)
	}
	return takeBlob(&out, false), nil
}

// Unseal calls CryptUnprotectData.
func (DPAPISealer) Unseal(sealed, entropy []byte) ([]byte, error) {
	in, ent := dataBlob(sealed), dataBlob(entropy)
	var out windows.DataBlob
	if err := windows.CryptUnprotectData(&in, nil, &ent, 0, nil, windows.CRYPTPROTECT_UI_FORBIDDEN, &out); err != nil {
		return nil, fmt.Errorf("CryptUnprotectData: %w", err)
	}
	return takeBlob(&out, true), nil
}

func dataBlob(b []byte) windows.DataBlob {
	if len(b) == 0 {
		return windows.DataBlob{}
	}
	return windows.DataBlob{Size: uint32(len(b)), Data: &b[0]}
}

// takeBlob copies the system-allocated out blob and frees it, wiping it
// first when it holds a secret.
func takeBlob(out *windows.DataBlob, secret bool) []byte {
	if out.Data == nil {
		return nil
	}
	src := unsafe.Slice(out.Data, out.Size)
	b := make([]byte, len(src))
	copy(b, src)
	if secret {
		clear(src)
	}
	_, _ = windows.LocalFree(windows.Handle(unsafe.Pointer(out.Data)))
	return b
}
