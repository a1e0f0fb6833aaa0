package winops

import (
	"context"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"hostgate/internal/agentproto"
)

// Registry name limits (Windows: "Registry element size limits").
const (
	maxKeyNameChars   = 255
	maxValueNameChars = 16383
)

// regRequest is a validated REGISTRY_RW command.
type regRequest struct {
	action    string
	hive      string // short form: HKLM, HKCU, HKCR, HKU, HKCC
	subkey    string // below the hive, without surrounding backslashes; "" is the hive
	name      string // value name; "" is the default value
	value     regValue
	recursive bool
}

func handleRegistry(ctx context.Context, raw json.RawMessage) (any, error) {
	var d agentproto.RegistryData
	path, err := decodeArgs(agentproto.CtlRegistryRW, raw, &d)
	if err != nil {
		return nil, err
	}
	req, err := newRegRequest(path, d)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return registryOp(req)
}

// newRegRequest parses the path and converts the value to write.
func newRegRequest(path string, d agentproto.RegistryData) (regRequest, error) {
	hive, sub, err := parseRegPath(path)
	if err != nil {
		return regRequest{}, err
	}
	if utf8.RuneCountInString(d.Name) > maxValueNameChars || strings.ContainsRune(d.Name, 0) {
		return regRequest{}, agentproto.ArgsError("name must be at most %d characters without NUL", maxValueNameChars)
	}
	req := regRequest{action: d.Action, hive: hive, subkey: sub, name: d.Name, recursive: d.Recursive}
	if d.Action == agentproto.RegistryWrite {
		if req.value, err = encodeValue(d.Type, d.Value); err != nil {
			return regRequest{}, err
		}
	}
	return req, nil
}

// parseRegPath splits "<hive>\<subkey>" into the hive's short name and
// the subkey, refusing empty or over-long key names.
func parseRegPath(path string) (string, string, error) {
	h, sub, _ := strings.Cut(path, `\`)
	hive, ok := agentproto.RegistryHive(h)
	if !ok {
		return "", "", agentproto.ArgsError("path must start with a hive: %s", strings.Join(agentproto.RegistryHives, ", "))
	}
	sub = strings.Trim(sub, `\`)
	if sub == "" {
		return hive, "", nil
	}
	for part := range strings.SplitSeq(sub, `\`) {
		if part == "" || utf8.RuneCountInString(part) > maxKeyNameChars || strings.ContainsRune(part, 0) {
			return "", "", agentproto.ArgsError("each key name in path must be 1..%d characters without NUL", maxKeyNameChars)
		}
	}
	return hive, sub, nil
}

// displayPath is the key as messages name it.
func (r regRequest) displayPath() string {
	if r.subkey == "" {
		return r.hive
	}
	return r.hive + `\` + r.subkey
}
