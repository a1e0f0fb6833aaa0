package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// config is where the CLI reaches the hub, and with which key.
type config struct{ url, key string }

// fileConfig is the config file's JSON.
type fileConfig struct {
	URL    string `json:"url"`
	APIKey string `json:"api_key"`
}

// loadConfig resolves the hub URL and API key: a flag wins over the
// environment, which wins over the config file. The file is read only when
// a value is still missing; named by --config or HOSTGATE_CONFIG it must
// exist, the default one may not.
func loadConfig(flagURL, flagKey, flagFile string, e env) (config, error) {
	c := config{url: first(flagURL, e.getenv("HOSTGATE_URL")), key: first(flagKey, e.getenv("HOSTGATE_API_KEY"))}
	path, named := configPath(flagFile, e)
	if c.url == "" || c.key == "" {
		fc, err := readConfigFile(path, named, e)
		if err != nil {
			return c, err
		}
		c.url, c.key = first(c.url, fc.URL), first(c.key, fc.APIKey)
	}
	where := "the config file " + path
	if path == "" {
		where = "a config file (--config or HOSTGATE_CONFIG)"
	}
	if c.url == "" {
		return c, &configError{"no hub URL: pass --url, set HOSTGATE_URL, or put \"url\" in " + where}
	}
	if c.key == "" {
		return c, &configError{"no API key: pass --api-key, set HOSTGATE_API_KEY, or put \"api_key\" in " + where}
	}
	return c, nil
}

// configPath is the config file to read: --config, HOSTGATE_CONFIG, else
// $XDG_CONFIG_HOME/hostgate/config.json, else
// ~/.config/hostgate/config.json ("" when there is no home). named: the
// user chose the file.
func configPath(flagFile string, e env) (path string, named bool) {
	if p := first(flagFile, e.getenv("HOSTGATE_CONFIG")); p != "" {
		return p, true
	}
	if x := e.getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "hostgate", "config.json"), false
	}
	if h, err := e.home(); err == nil && h != "" {
		return filepath.Join(h, ".config", "hostgate", "config.json"), false
	}
	return "", false
}

// readConfigFile reads path, warning on stderr when group or others may
// read it (it holds an API key).
func readConfigFile(path string, named bool, e env) (fileConfig, error) {
	var fc fileConfig
	if path == "" {
		return fc, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && !named {
		return fc, nil
	}
	if err != nil {
		return fc, &configError{fmt.Sprintf("config file: %v", err)}
	}
	if st, err := os.Stat(path); err == nil && runtime.GOOS != "windows" && st.Mode().Perm()&0o044 != 0 {
		fmt.Fprintf(e.stderr, "hostgate-cli: warning: %s is readable by group or others; it holds an API key (chmod 600 %s)\n", path, path)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&fc); err != nil {
		return fc, &configError{fmt.Sprintf("config file %s: %v", path, err)}
	}
	return fc, nil
}

func first(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
