package fileops

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"unicode/utf8"

	"hostgate/internal/agentproto"
)

// strRd is STR_RD: read a file of at most agentproto.MaxReadBytes.
func strRd(_ context.Context, _ agentproto.ControlArgs, path string) (any, error) {
	b, err := readCapped(path)
	if err != nil {
		return nil, err
	}
	res := agentproto.ReadResult{Path: path, Bytes: int64(len(b))}
	if utf8.Valid(b) && jsonTextFits(b) {
		res.Content, res.Encoding = string(b), "utf-8"
	} else {
		res.Content, res.Encoding = base64.StdEncoding.EncodeToString(b), "base64"
	}
	return res, nil
}

// maxTextJSON bounds the JSON form of a file sent as text. JSON escapes
// control characters and <, >, & to six bytes each, so a 1 MiB file could
// grow past the agent's message limit (agentproto.MaxMessage); such a file
// goes as base64, which grows by a third at most.
const maxTextJSON = agentproto.MaxMessage / 2

// jsonTextFits reports whether b, as a JSON string, stays within
// maxTextJSON.
func jsonTextFits(b []byte) bool {
	j, err := json.Marshal(string(b))
	return err == nil && len(j) <= maxTextJSON
}

// strRm is STR_RM: cut every occurrence of data out of the file. The file
// is rewritten atomically, keeping its mode, and only when something
// matched.
func strRm(_ context.Context, a agentproto.ControlArgs, path string) (any, error) {
	needle, err := agentproto.DataString(a.Data)
	if err != nil {
		return nil, err
	}
	target, old, err := writableTarget(path)
	if err != nil {
		return nil, err
	}
	if old == nil {
		return nil, fail(CodeNotFound, "%s does not exist", path)
	}
	b, err := readCapped(target)
	if err != nil {
		return nil, err
	}
	n := bytes.Count(b, []byte(needle))
	if n == 0 {
		return agentproto.RemoveStringResult{Path: path, Bytes: int64(len(b))}, nil
	}
	out := bytes.ReplaceAll(b, []byte(needle), nil)
	size, err := writeAtomic(target, old, func(w io.Writer) error {
		_, err := w.Write(out)
		return err
	})
	if err != nil {
		return nil, osErr(err, path)
	}
	return agentproto.RemoveStringResult{Path: path, Removed: n, Bytes: size}, nil
}

// readCapped reads the regular file path, refusing one larger than
// agentproto.MaxReadBytes. The size is checked before reading and again
// while reading, for files that grow or report no size (/proc).
func readCapped(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, osErr(err, path)
	}
	if err := readable(path, fi); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, osErr(err, path)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, agentproto.MaxReadBytes+1))
	if err != nil {
		return nil, osErr(err, path)
	}
	if len(b) > agentproto.MaxReadBytes {
		return nil, tooLargeToRead(path)
	}
	return b, nil
}

// readable refuses what STR_RD and STR_RM cannot take: a directory, a
// special file (a FIFO would block the open) or a file over the limit.
func readable(path string, fi fs.FileInfo) error {
	switch {
	case fi.IsDir():
		return fail(CodeIsADirectory, "%s is a directory", path)
	case !fi.Mode().IsRegular():
		return fail(agentproto.CodeFailed, "%s is not a regular file (%v)", path, fi.Mode().Type())
	case fi.Size() > agentproto.MaxReadBytes:
		return tooLargeToRead(path)
	}
	return nil
}

func tooLargeToRead(path string) error {
	return fail(CodeFileTooLarge, "%s is larger than %d bytes, the limit for reading", path, agentproto.MaxReadBytes)
}
