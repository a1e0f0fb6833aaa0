package l1

import "testing"

func BenchmarkEncode(b *testing.B) {
	c := mustCodec(b, testBID, testKey)
	r := shellRequest()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Encode(r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	c := mustCodec(b, testBID, testKey)
	body := []byte(mustEncode(b, c, shellRequest()))
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Decode(body, testNow); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeBadPadding is the refusal path; it should cost about what
// BenchmarkDecode does, since a bad padding still parses the frame.
func BenchmarkDecodeBadPadding(b *testing.B) {
	c := mustCodec(b, testBID, testKey)
	plain := mustPlain(b, c, mustEncode(b, c, shellRequest()))
	body := []byte(sealRaw(c, append(plain, make([]byte, 16-len(plain)%16)...)))
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Decode(body, testNow); err != ErrInvalid {
			b.Fatal(err)
		}
	}
}
