// Package fileops carries out the agent's file operations: DIR_MK, DIR_RM,
// FILE_MK, FILE_RM, STR_AD, STR_RD, STR_RM, ZIP_2_DIR and DOWN_FILE (ops
// "files.*" in agentproto's controls table).
//
// Every handler decodes its arguments and validates them exactly as the
// hub does (agentproto.ValidateArgs), then insists on absolute paths: the
// agent runs as a service whose working directory means nothing to the
// caller. Writes that replace a file go through a temporary file in the
// same directory, fsync and rename, so a reader never sees half a file and
// a failure leaves the old file in place. The user documentation is
// docs/operations/files.md.
package fileops

import (
	"context"
	"path/filepath"
	"strings"

	"hostgate/internal/agentproto"
)

// Error codes of this package, besides agentproto's invalid_args and
// failed. The hub passes them through to the client (internal/operations
// FailureCodes), not_found as target_not_found.
const (
	// CodeNotFound: the path (or a parent directory) does not exist.
	CodeNotFound = "not_found"
	// CodePermissionDenied: the operating system refused access.
	CodePermissionDenied = "permission_denied"
	// CodeNotADirectory: a directory was expected but a file is there.
	CodeNotADirectory = "not_a_directory"
	// CodeIsADirectory: a file was expected but a directory is there.
	CodeIsADirectory = "is_a_directory"
	// CodeFileTooLarge: a file, archive or download passes its size limit.
	CodeFileTooLarge = "file_too_large"
	// CodeUnsafeZipEntry: an archive entry would land outside the target
	// directory or is a link or device; nothing was unpacked.
	CodeUnsafeZipEntry = "unsafe_zip_entry"
	// CodeDownloadFailed: the URL could not be fetched (network error,
	// timeout or a non-2xx status).
	CodeDownloadFailed = "download_failed"
	// CodeChecksumMismatch: the downloaded body's SHA-256 is not the one
	// asked for; nothing was written.
	CodeChecksumMismatch = "checksum_mismatch"
)

// Handler is an agent operation handler.
type Handler = agentproto.Handler

// op is a handler body: it gets the validated args and the cleaned
// absolute path.
type op func(ctx context.Context, a agentproto.ControlArgs, path string) (any, error)

// Handlers returns the operations of this package keyed by op name.
func Handlers() map[string]Handler {
	return agentproto.ControlHandlers(map[int64]agentproto.ControlFunc{
		agentproto.CtlDirMk:    withPath(dirMk),
		agentproto.CtlDirRm:    withPath(dirRm),
		agentproto.CtlFileMk:   withPath(fileMk),
		agentproto.CtlFileRm:   withPath(fileRm),
		agentproto.CtlStrAd:    withPath(strAd),
		agentproto.CtlStrRd:    withPath(strRd),
		agentproto.CtlStrRm:    withPath(strRm),
		agentproto.CtlZipToDir: withPath(unzip),
		agentproto.CtlDownFile: withPath(download),
	})
}

// withPath gives f the args' path checked absolute and cleaned.
func withPath(f op) agentproto.ControlFunc {
	return func(ctx context.Context, a agentproto.ControlArgs) (any, error) {
		p, err := absPath("path", a.Path)
		if err != nil {
			return nil, err
		}
		return f(ctx, a, p)
	}
}

// absPath refuses a relative path (the service's working directory is not
// the caller's business) and returns p cleaned.
func absPath(field, p string) (string, error) {
	if strings.IndexByte(p, 0) >= 0 {
		return "", agentproto.ArgsError("%s must not contain a NUL byte", field)
	}
	if !filepath.IsAbs(p) {
		return "", agentproto.ArgsError("%s must be an absolute path, got %q", field, p)
	}
	return filepath.Clean(p), nil
}
