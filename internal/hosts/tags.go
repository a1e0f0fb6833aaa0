package hosts

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Limits on tags and saved filters (docs/hosts.md, "Tags and saved
// filters").
const (
	MaxTagKeyLen      = 64
	MaxTagValueLen    = 128
	MaxTagsPerHost    = 32
	MaxBulkHosts      = 1000
	MaxFilterNameLen  = 100
	MaxFiltersPerUser = 100
	// MaxFilterTags bounds the tag expressions of a query.
	MaxFilterTags = MaxTagsPerHost
	// MaxQueryLen bounds q, as the host lists' q parameter.
	MaxQueryLen = 254
	// MaxTagCountLimit is the largest page of GET /v1/user/tags.
	MaxTagCountLimit = 1000
	// DefaultTagCountLimit is its default page.
	DefaultTagCountLimit = 200
)

// Tags are a host's labels, key → value (the value may be empty). A nil
// Tags encodes as {}, so that the host object always has its tags.
type Tags map[string]string

// MarshalJSON implements json.Marshaler: nil is {}.
func (t Tags) MarshalJSON() ([]byte, error) {
	if t == nil {
		return []byte("{}"), nil
	}
	return json.Marshal(map[string]string(t))
}

// Keys returns t's keys in order.
func (t Tags) Keys() []string {
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// TagKeyProblem says what is wrong with a tag key, "" when nothing: 1 to
// 64 characters of [A-Za-z0-9_.-], the first alphanumeric.
func TagKeyProblem(key string) string {
	switch {
	case key == "":
		return "a tag key must not be empty"
	case len(key) > MaxTagKeyLen:
		return fmt.Sprintf("a tag key is at most %d characters", MaxTagKeyLen)
	case !isAlnum(key[0]):
		return "a tag key starts with a letter or digit"
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; !isAlnum(c) && c != '_' && c != '.' && c != '-' {
			return "a tag key has only letters, digits, _ . and -"
		}
	}
	return ""
}

// TagValueProblem says what is wrong with a tag value, "" when nothing:
// 0 to 128 characters of [A-Za-z0-9_.:/@+-].
func TagValueProblem(value string) string {
	if len(value) > MaxTagValueLen {
		return fmt.Sprintf("a tag value is at most %d characters", MaxTagValueLen)
	}
	for i := 0; i < len(value); i++ {
		if c := value[i]; !isAlnum(c) && !strings.ContainsRune("_.:/@+-", rune(c)) {
			return "a tag value has only letters, digits and _ . : / @ + -"
		}
	}
	return ""
}

// quoteKey names a key in a message: quoted, and cut to the longest a
// valid key can be, so that a message never echoes more than a key.
func quoteKey(key string) string {
	if len(key) > MaxTagKeyLen {
		key = key[:MaxTagKeyLen]
	}
	return fmt.Sprintf("%q", key)
}

// CheckTags returns a message naming the first bad tag of t (keys in
// order), or "" when every tag is valid and there are at most
// MaxTagsPerHost.
func CheckTags(t Tags) string {
	if len(t) > MaxTagsPerHost {
		return fmt.Sprintf("a host has at most %d tags", MaxTagsPerHost)
	}
	for _, k := range t.Keys() {
		if p := TagKeyProblem(k); p != "" {
			return "tag " + quoteKey(k) + ": " + p
		}
		if p := TagValueProblem(t[k]); p != "" {
			return "tag " + quoteKey(k) + ": " + p
		}
	}
	return ""
}

// TagExpr is one parsed tag expression: "key=value" (HasValue) or "key"
// (the host has the key, whatever its value). "key=" is the key with the
// empty value.
type TagExpr struct {
	Key      string
	Value    string
	HasValue bool
}

// String is the expression as written.
func (e TagExpr) String() string {
	if e.HasValue {
		return e.Key + "=" + e.Value
	}
	return e.Key
}

// ParseTagExpr parses a tag expression; the error's text names what is
// wrong, quoting at most the key.
func ParseTagExpr(s string) (TagExpr, error) {
	key, value, has := strings.Cut(s, "=")
	if p := TagKeyProblem(key); p != "" {
		return TagExpr{}, fmt.Errorf("tag %s: %s", quoteKey(key), p)
	}
	if p := TagValueProblem(value); p != "" {
		return TagExpr{}, fmt.Errorf("tag %s: %s", quoteKey(key), p)
	}
	return TagExpr{Key: key, Value: value, HasValue: has}, nil
}

// ParseTagExprs parses each of exprs, at most MaxFilterTags of them.
func ParseTagExprs(exprs []string) ([]TagExpr, error) {
	if len(exprs) > MaxFilterTags {
		return nil, fmt.Errorf("at most %d tag expressions", MaxFilterTags)
	}
	out := make([]TagExpr, 0, len(exprs))
	for _, s := range exprs {
		e, err := ParseTagExpr(s)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// TagCount is how many of a user's hosts carry a tag.
type TagCount struct {
	Key       string `json:"key"`
	Value     string `json:"value"`
	HostCount int    `json:"host_count"`
}

// FilterQuery is what a saved filter selects: the host lists' criteria
// (docs/hosts.md, "Searching and filtering hosts").
type FilterQuery struct {
	Q            string   `json:"q" required:"false" maxLength:"254" doc:"Host name contains this (case-insensitive), or the host id is exactly this"`
	Status       Status   `json:"status" required:"false" enum:",pending,online,stale,offline,banned" doc:"Stored status; empty for any"`
	Online       *bool    `json:"online" required:"false" doc:"Stored status online (true) or any other (false); null for either"`
	OS           string   `json:"os" required:"false" maxLength:"64" doc:"OS family, the first word of the reported OS (linux, windows, …)"`
	AgentVersion string   `json:"agent_version" required:"false" maxLength:"64" doc:"Exact agent version"`
	Tags         []string `json:"tags" required:"false" maxItems:"32" doc:"Tag expressions key=value or key, all must match"`
}

// SavedFilter is a user's named FilterQuery.
type SavedFilter struct {
	ID     string      `json:"id"`
	UserID string      `json:"-"`
	Name   string      `json:"name"`
	Query  FilterQuery `json:"query"`
	// HostCount is the number of hosts the filter matches now; set only
	// when one filter is read.
	HostCount *int      `json:"host_count,omitempty" doc:"Hosts the filter matches now (only on GET of one filter)"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Selector picks a user's hosts: exactly one of the three is set.
type Selector struct {
	HostIDs  []string // each must be owner's undeleted host, else not_found (whole refusal)
	Tags     []string // tag expressions, all must match
	FilterID string   // a saved filter of owner's, else not_found
}
