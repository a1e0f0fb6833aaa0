package l1

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"hostgate/internal/agentproto"
)

// The end-to-end example of docs/l1.md. vectorBody was produced by the
// Python client snippet of that page (python3, cryptography 48) from
// vectorPlain; Go's Encode must produce the same text and Decode must
// accept it. Re-checking the snippet is the manual step the page describes.
const (
	vectorKey   = "3f9a1c7e5b2d4086a1e3c5b7d9f02468"
	vectorBID   = int64(4821936602771)
	vectorPlain = `{"bid":4821936602771,"control":8192,"args":{"path":"cmd.exe","data":{"args":"/c ver","timeout_s":10}},"ts":1767268800,"nonce":"k7Q2mX9pL4vR8sT1"}`
	vectorBody  = "S5xNyUTHbYwOKRzZxs08GDrLyowQ5KENwEdY8yxCrihOYU7JXwerIwkBE5XbCB4R0MdRv1+P7o/FKYPkJH8jyUa3qIUcmWqzbKKYgisCazAWKGR5xqRwt0hcFhSfv5U1ZEwjgtb2rUSoTO2GJQTGyklTjFnVC/7sTRRGQ1yybMkW+JyBc7xSRduv6OjB1d9I1qhCjR/N+CmDe7BgA7phHA=="
)

func vectorRequest() Request {
	return Request{
		Control: agentproto.CtlExecShell,
		Args:    agentproto.ControlArgs{Path: "cmd.exe", Data: json.RawMessage(`{"args":"/c ver","timeout_s":10}`)},
		TS:      1767268800,
		Nonce:   "k7Q2mX9pL4vR8sT1",
	}
}

func TestDocumentedVector(t *testing.T) {
	c := mustCodec(t, vectorBID, vectorKey)
	if got := c.seal([]byte(vectorPlain)); got != vectorBody {
		t.Fatalf("seal(plaintext) = %s\nwant %s", got, vectorBody)
	}
	if got := mustEncode(t, c, vectorRequest()); got != vectorBody {
		t.Fatalf("Encode = %s\nwant %s", got, vectorBody)
	}
	got, err := c.Decode([]byte(vectorBody), time.Unix(1767268800+120, 0))
	if err != nil {
		t.Fatalf("Decode(python output): %v", err)
	}
	if !reflect.DeepEqual(got, vectorRequest()) {
		t.Fatalf("Decode = %+v, want %+v", got, vectorRequest())
	}
}

// TestDocsShowTheVector keeps docs/l1.md in step with the code.
func TestDocsShowTheVector(t *testing.T) {
	doc, err := os.ReadFile("../../docs/l1.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{vectorKey, vectorPlain, vectorBody} {
		if !strings.Contains(string(doc), s) {
			t.Errorf("docs/l1.md does not show %.40s…", s)
		}
	}
}
