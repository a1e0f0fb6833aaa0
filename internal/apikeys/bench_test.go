package apikeys

import (
	"context"
	"testing"
	"time"
)

// memStore is a Store holding one key in memory, so the benchmark measures
// the check itself (parse, hash, constant-time compare) without a database.
type memStore struct {
	id, owner string
	hash      []byte
}

func (m memStore) CreateKey(context.Context, Key, []byte) error                 { return nil }
func (m memStore) ListKeys(context.Context, string) ([]Key, error)              { return nil, nil }
func (m memStore) ListAllKeys(context.Context, string, int) ([]AdminKey, error) { return nil, nil }
func (m memStore) CountKeys(context.Context, string) (int, error)               { return 0, nil }
func (m memStore) DeleteKey(context.Context, string, string, time.Time) error   { return nil }
func (m memStore) TouchKeys(context.Context, map[string]time.Time) error        { return nil }
func (m memStore) KeyForAuth(_ context.Context, id string) (string, []byte, error) {
	if id != m.id {
		return "", nil, ErrNotFound
	}
	return m.owner, m.hash, nil
}

func BenchmarkAuthenticate(b *testing.B) {
	const id, secret = "0123456789abcdef", "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ"
	s := NewService(memStore{id: id, owner: "u1", hash: hash(secret)}, nil)
	good, wrong := "ak_"+id+"."+secret, "ak_"+id+".bbcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ"
	b.Run("valid", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.Authenticate(b.Context(), good); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("wrong-secret", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.Authenticate(b.Context(), wrong); err == nil {
				b.Fatal("accepted")
			}
		}
	})
}
