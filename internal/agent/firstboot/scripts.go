package firstboot

import "embed"

// Scripts holds the thin first-boot scripts a template image carries
// (docs/provisioning.md): scripts/first-boot.sh (Linux, POSIX sh) and
// scripts/first-boot.ps1 (Windows PowerShell). Each exits 4 when the agent
// executable is absent from the image, and otherwise runs
// `hostgate-agent first-boot` and exits with its code.
//
//go:embed scripts/first-boot.sh scripts/first-boot.ps1
var Scripts embed.FS
