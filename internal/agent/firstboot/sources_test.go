package firstboot

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// metadataServer answers like the metadata services do: every request
// must carry the wanted headers, or it gets 401/400.
func metadataServer(t *testing.T, routes map[string]func(w http.ResponseWriter, r *http.Request)) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h, ok := routes[r.Method+" "+r.URL.RequestURI()]; ok {
			h(w, r)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func need(t *testing.T, header, value string, body string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(header) != value {
			http.Error(w, "missing "+header, http.StatusUnauthorized)
			return
		}
		w.Write([]byte(body))
	}
}

func fetch(t *testing.T, s Source) (string, error) {
	t.Helper()
	b, err := s.Fetch(context.Background())
	return string(b), err
}

func TestSourcesReadEachCloudsUserData(t *testing.T) {
	doc := string(payload(nil))
	for _, tc := range []struct {
		name   string
		routes map[string]func(http.ResponseWriter, *http.Request)
	}{
		{"aws", map[string]func(http.ResponseWriter, *http.Request){
			"PUT /latest/api/token": func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("X-aws-ec2-metadata-token-ttl-seconds") == "" {
					http.Error(w, "", http.StatusBadRequest)
					return
				}
				w.Write([]byte("imds-token"))
			},
			"GET /latest/user-data": need(t, "X-aws-ec2-metadata-token", "imds-token", doc),
		}},
		{"azure", map[string]func(http.ResponseWriter, *http.Request){
			"GET /metadata/instance/compute/userData?api-version=2021-01-01&format=text": need(t, "Metadata", "true",
				base64.StdEncoding.EncodeToString([]byte(doc))),
		}},
		{"gcp", map[string]func(http.ResponseWriter, *http.Request){
			"GET /computeMetadata/v1/instance/attributes/user-data": need(t, "Metadata-Flavor", "Google", doc),
		}},
		{"aliyun", map[string]func(http.ResponseWriter, *http.Request){
			"PUT /latest/api/token": need(t, "X-aliyun-ecs-metadata-token-ttl-seconds", "300", "ecs-token"),
			"GET /latest/user-data": need(t, "X-aliyun-ecs-metadata-token", "ecs-token", doc),
		}},
		{"aliyun normal mode", map[string]func(http.ResponseWriter, *http.Request){
			"GET /latest/user-data": func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(doc)) },
		}},
		{"tencent", map[string]func(http.ResponseWriter, *http.Request){
			"GET /latest/user-data": func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(doc)) },
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := metadataServer(t, tc.routes)
			name, _, _ := strings.Cut(tc.name, " ")
			src, err := ParseSource(name, base)
			if err != nil {
				t.Fatal(err)
			}
			if az, ok := src.(Azure); ok {
				az.CustomData = ""
				src = az
			}
			got, err := fetch(t, src)
			if err != nil || got != doc {
				t.Fatalf("Fetch = %q, %v", got, err)
			}
			// Without user data (404) there is no document yet.
			empty, err := ParseSource(name, metadataServer(t, nil))
			if err != nil {
				t.Fatal(err)
			}
			if az, ok := empty.(Azure); ok {
				az.CustomData = ""
				empty = az
			}
			if got, err := fetch(t, empty); got != "" || (err != nil && name != "aws") {
				t.Errorf("no user data: %q, %v", got, err)
			}
		})
	}
}

func TestSourceServerErrorIsAnError(t *testing.T) {
	base := metadataServer(t, map[string]func(http.ResponseWriter, *http.Request){
		"GET /latest/user-data": func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", http.StatusBadGateway) },
	})
	if got, err := fetch(t, Tencent{Base: base, Client: metadataClient()}); err == nil || got != "" {
		t.Fatalf("502: %q, %v", got, err)
	}
}

func TestAzureFallsBackToCustomData(t *testing.T) {
	doc := string(payload(nil))
	dir := t.TempDir()
	base := metadataServer(t, nil) // no userData
	for name, content := range map[string]string{"raw": doc, "base64": base64.StdEncoding.EncodeToString([]byte(doc)) + "\n"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, err := fetch(t, Azure{Base: base, Client: metadataClient(), CustomData: path}); err != nil || got != doc {
			t.Errorf("%s custom data: %q, %v", name, got, err)
		}
	}
}

func TestFileSource(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.json")
	if got, err := fetch(t, File{Path: path}); got != "" || err != nil {
		t.Fatalf("absent: %q, %v", got, err)
	}
	os.WriteFile(path, []byte("{}"), 0o600)
	if got, err := fetch(t, File{Path: path}); got != "{}" || err != nil {
		t.Fatalf("present: %q, %v", got, err)
	}
}

func TestAnyTakesTheFirstSourceWithADocument(t *testing.T) {
	doc := string(payload(nil))
	dir := t.TempDir()
	gcp := metadataServer(t, map[string]func(http.ResponseWriter, *http.Request){
		"GET /computeMetadata/v1/instance/attributes/user-data": need(t, "Metadata-Flavor", "Google", doc),
	})
	down := metadataServer(t, nil)
	c := metadataClient()
	a := Any{Sources: []Source{File{Path: filepath.Join(dir, "absent")}, AWS{Base: down, Client: c}, GCP{Base: gcp, Client: c}}}
	if got, err := fetch(t, a); err != nil || got != doc {
		t.Fatalf("Fetch = %q, %v", got, err)
	}
	if got, err := fetch(t, Any{Sources: []Source{File{Path: filepath.Join(dir, "absent")}, GCP{Base: down, Client: c}}}); got != "" || err != nil {
		t.Fatalf("none: %q, %v", got, err)
	}
	if _, err := fetch(t, Any{Sources: []Source{AWS{Base: down, Client: c}}}); err == nil {
		t.Fatal("every source failing is no error")
	}
}

func TestAutoReadsTheDefaultFileAndEveryCloud(t *testing.T) {
	a := Auto(metadataClient())
	names := []string{}
	for _, s := range a.Sources {
		names = append(names, s.Name())
	}
	want := []string{"file " + DefaultFile(), "aws user data (IMDSv2)", "azure userData (IMDS) or custom data",
		"gcp metadata attribute user-data", "aliyun user data", "tencent user data"}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Errorf("auto reads %q\nwant %q", names, want)
	}
}
