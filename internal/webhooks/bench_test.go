package webhooks

import (
	"bytes"
	"testing"
)

func BenchmarkSign(b *testing.B) {
	body := bytes.Repeat([]byte(`{"delivery_id":"d","bid":12345,"secret_key":"0123456789abcdef"}`), 4)
	key := Secret("0123456789abcdef0123456789abcdef")
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		_ = Sign(key, 1700000000, body)
	}
}
