package l1

import (
	"encoding/json"
	"testing"
)

func TestResponseJSON(t *testing.T) {
	for _, tc := range []struct {
		r    Response
		want string
	}{
		{OK(json.RawMessage(`{"pid":42}`)), `{"code":0,"data":{"pid":42},"msg":"ok"}`},
		{OK(nil), `{"code":0,"data":null,"msg":"ok"}`},
		{Fail("host offline"), `{"code":7,"data":null,"msg":"host offline"}`},
		{Invalid(), `{"code":7,"data":null,"msg":"invalid message"}`},
	} {
		got, err := json.Marshal(tc.r)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.want {
			t.Errorf("Marshal = %s, want %s", got, tc.want)
		}
	}
}
