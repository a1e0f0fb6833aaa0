package firstboot

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Source is where the provisioning payload is read from: a cloud's
// instance metadata service or a local file.
type Source interface {
	// Name says what is read, for messages ("aws user data (IMDSv2)").
	Name() string
	// Fetch returns the document, or nil when there is none yet. An error
	// is a source not answering (yet); the caller keeps polling.
	Fetch(ctx context.Context) ([]byte, error)
}

// maxDocument bounds what is read from a source: the largest user data a
// cloud accepts (64 KB), plus one byte. ParsePayload refuses anything of
// 1 KB or more with a clear reason, so a bigger document is still read
// far enough to be refused as too big.
const maxDocument = 64<<10 + 1

// Default metadata service addresses.
const (
	AWSBase     = "http://169.254.169.254"
	AzureBase   = "http://169.254.169.254"
	GCPBase     = "http://169.254.169.254"
	AliyunBase  = "http://100.100.100.200"
	TencentBase = "http://metadata.tencentyun.com"
)

// SourceNames are the --source values besides file:PATH.
var SourceNames = []string{"auto", "aws", "azure", "gcp", "aliyun", "tencent"}

// DefaultFile is the local file the auto source reads first (and the one
// an image builder or a test can write): provisioning.json in the
// agent's configuration directory.
func DefaultFile() string {
	if runtime.GOOS == "windows" {
		pd := os.Getenv("ProgramData")
		if pd == "" {
			pd = `C:\ProgramData`
		}
		return filepath.Join(pd, "hostgate", "provisioning.json")
	}
	return "/etc/hostgate/provisioning.json"
}

// AzureCustomDataFile is where Azure puts a machine's custom data: on
// Windows by the provisioning agent, on Linux by the Azure Linux agent
// (base64-encoded unless the agent is told to decode it).
func AzureCustomDataFile() string {
	if runtime.GOOS == "windows" {
		sd := os.Getenv("SystemDrive")
		if sd == "" {
			sd = "C:"
		}
		return sd + `\AzureData\CustomData.bin`
	}
	return "/var/lib/waagent/CustomData"
}

// ParseSource turns a --source value into a Source. base, when not "",
// replaces the metadata service address of a single cloud source (tests
// point it at a local server); it is refused with auto and file:.
func ParseSource(spec, base string) (Source, error) {
	client := metadataClient()
	if path, ok := strings.CutPrefix(spec, "file:"); ok {
		if path == "" {
			return nil, errors.New("--source file:PATH needs a path")
		}
		if base != "" {
			return nil, errors.New("--metadata-url applies to a single cloud source")
		}
		return File{Path: path}, nil
	}
	pick := func(def string) string {
		if base != "" {
			return strings.TrimRight(base, "/")
		}
		return def
	}
	switch spec {
	case "auto":
		if base != "" {
			return nil, errors.New("--metadata-url applies to a single cloud source")
		}
		return Auto(client), nil
	case "aws":
		return AWS{Base: pick(AWSBase), Client: client}, nil
	case "azure":
		return Azure{Base: pick(AzureBase), Client: client, CustomData: AzureCustomDataFile()}, nil
	case "gcp":
		return GCP{Base: pick(GCPBase), Client: client}, nil
	case "aliyun":
		return Aliyun{Base: pick(AliyunBase), Client: client}, nil
	case "tencent":
		return Tencent{Base: pick(TencentBase), Client: client}, nil
	}
	return nil, fmt.Errorf("--source must be auto, file:PATH, %s", strings.Join(SourceNames[1:], ", "))
}

// metadataClient talks to link-local metadata services: never through a
// proxy, and briefly.
func metadataClient() *http.Client {
	return &http.Client{Transport: &http.Transport{Proxy: nil}, Timeout: 5 * time.Second}
}

// File reads a local file; an absent or empty file is no document yet.
type File struct{ Path string }

// Name implements Source.
func (f File) Name() string { return "file " + f.Path }

// Fetch implements Source.
func (f File) Fetch(context.Context) ([]byte, error) {
	fh, err := os.Open(f.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return io.ReadAll(io.LimitReader(fh, maxDocument))
}

// get does one metadata request: 200 gives the body, 404 no document yet,
// anything else an error.
func get(ctx context.Context, c *http.Client, method, url string, header map[string]string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		return nil, err
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument))
	switch {
	case err != nil:
		return nil, err
	case resp.StatusCode == http.StatusNotFound:
		return nil, nil
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("%s %s: %s", method, url, resp.Status)
	}
	return body, nil
}

// AWS reads EC2 user data through IMDSv2: a session token from
// PUT /latest/api/token, then GET /latest/user-data with it.
type AWS struct {
	Base   string
	Client *http.Client
}

// Name implements Source.
func (AWS) Name() string { return "aws user data (IMDSv2)" }

// Fetch implements Source.
func (a AWS) Fetch(ctx context.Context) ([]byte, error) {
	tok, err := get(ctx, a.Client, http.MethodPut, a.Base+"/latest/api/token",
		map[string]string{"X-aws-ec2-metadata-token-ttl-seconds": "300"})
	if err != nil {
		return nil, err
	}
	if len(tok) == 0 {
		return nil, errors.New("IMDSv2 gave no session token")
	}
	return get(ctx, a.Client, http.MethodGet, a.Base+"/latest/user-data",
		map[string]string{"X-aws-ec2-metadata-token": strings.TrimSpace(string(tok))})
}

// Azure reads the VM's user data from the instance metadata service
// (base64 in the answer), and when there is none the custom data file.
type Azure struct {
	Base       string
	Client     *http.Client
	CustomData string // "" skips the custom data file
}

// Name implements Source.
func (Azure) Name() string { return "azure userData (IMDS) or custom data" }

// Fetch implements Source.
func (a Azure) Fetch(ctx context.Context) ([]byte, error) {
	b, err := get(ctx, a.Client, http.MethodGet,
		a.Base+"/metadata/instance/compute/userData?api-version=2021-01-01&format=text", map[string]string{"Metadata": "true"})
	if err == nil && len(strings.TrimSpace(string(b))) > 0 {
		doc, derr := base64.StdEncoding.DecodeString(strings.TrimSpace(string(b)))
		if derr != nil {
			return nil, errors.New("azure userData is not base64")
		}
		return doc, nil
	}
	if a.CustomData != "" {
		if cd, cerr := (File{Path: a.CustomData}).Fetch(ctx); cerr == nil && len(cd) > 0 {
			// The Linux agent keeps it base64-encoded; a payload itself
			// begins with '{', which is not base64.
			if dec, derr := base64.StdEncoding.DecodeString(strings.TrimSpace(string(cd))); derr == nil {
				return dec, nil
			}
			return cd, nil
		}
	}
	return nil, err
}

// GCP reads the instance attribute user-data from the metadata server.
type GCP struct {
	Base   string
	Client *http.Client
}

// Name implements Source.
func (GCP) Name() string { return "gcp metadata attribute user-data" }

// Fetch implements Source.
func (g GCP) Fetch(ctx context.Context) ([]byte, error) {
	return get(ctx, g.Client, http.MethodGet, g.Base+"/computeMetadata/v1/instance/attributes/user-data",
		map[string]string{"Metadata-Flavor": "Google"})
}

// Aliyun reads Alibaba Cloud ECS user data, in security hardening mode
// (a token from PUT /latest/api/token) when the service gives a token,
// else in normal mode.
type Aliyun struct {
	Base   string
	Client *http.Client
}

// Name implements Source.
func (Aliyun) Name() string { return "aliyun user data" }

// Fetch implements Source.
func (a Aliyun) Fetch(ctx context.Context) ([]byte, error) {
	var h map[string]string
	tok, err := get(ctx, a.Client, http.MethodPut, a.Base+"/latest/api/token",
		map[string]string{"X-aliyun-ecs-metadata-token-ttl-seconds": "300"})
	if err == nil && len(tok) > 0 {
		h = map[string]string{"X-aliyun-ecs-metadata-token": strings.TrimSpace(string(tok))}
	}
	return get(ctx, a.Client, http.MethodGet, a.Base+"/latest/user-data", h)
}

// Tencent reads Tencent Cloud CVM user data.
type Tencent struct {
	Base   string
	Client *http.Client
}

// Name implements Source.
func (Tencent) Name() string { return "tencent user data" }

// Fetch implements Source.
func (t Tencent) Fetch(ctx context.Context) ([]byte, error) {
	return get(ctx, t.Client, http.MethodGet, t.Base+"/latest/user-data", nil)
}

// Any reads every source of Sources at once and returns the document of
// the first one in order that has one.
type Any struct{ Sources []Source }

// Auto is the auto source: DefaultFile, then AWS, Azure, GCP, Alibaba
// Cloud and Tencent Cloud.
func Auto(client *http.Client) Any {
	return Any{Sources: []Source{
		File{Path: DefaultFile()},
		AWS{Base: AWSBase, Client: client},
		Azure{Base: AzureBase, Client: client, CustomData: AzureCustomDataFile()},
		GCP{Base: GCPBase, Client: client},
		Aliyun{Base: AliyunBase, Client: client},
		Tencent{Base: TencentBase, Client: client},
	}}
}

// Name implements Source.
func (a Any) Name() string {
	names := make([]string, len(a.Sources))
	for i, s := range a.Sources {
		names[i] = s.Name()
	}
	return strings.Join(names, ", ")
}

// Fetch implements Source. It errs only when every source errs.
func (a Any) Fetch(ctx context.Context) ([]byte, error) {
	docs := make([][]byte, len(a.Sources))
	errs := make([]error, len(a.Sources))
	var wg sync.WaitGroup
	for i, s := range a.Sources {
		wg.Go(func() { docs[i], errs[i] = s.Fetch(ctx) })
	}
	wg.Wait()
	failed := 0
	for i, d := range docs {
		if errs[i] != nil {
			failed++
			continue
		}
		if len(strings.TrimSpace(string(d))) > 0 {
			return d, nil
		}
	}
	if failed == len(a.Sources) {
		return nil, errors.New("no source answered")
	}
	return nil, nil
}
