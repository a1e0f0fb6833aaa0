package hostgate

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"hostgate/internal/agentproto"
	"hostgate/internal/hosts"
)

// The agent setup the hub issues is declared once, as agentproto.Issued;
// the install credentials (hosts.Credentials) embed it beside their own
// members, and so does the provisioning payload's hub section
// (agentproto.PayloadHub). The SDKs mirror both; these tests fail when a
// member is added or removed in one place only. (The rest of
// agentproto.Setup, the members set on the machine, never crosses the
// API.)
const (
	pyTypesFile        = "../python/src/hostgate/types.py"
	pyProvisioningFile = "../python/src/hostgate/provisioning.py"
	tsSchemaFile       = "../typescript/src/schema.d.ts"
)

// jsonMembers lists the JSON member names of struct type t, embedded
// structs flattened, in encoding order.
func jsonMembers(t reflect.Type) []string {
	var names []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" || !f.IsExported():
		case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
			names = append(names, jsonMembers(f.Type)...)
		case name == "":
			names = append(names, f.Name)
		default:
			names = append(names, name)
		}
	}
	return names
}

// pyDataclassFields lists the fields of the dataclass class in a Python
// file: the "name: type" lines indented once in its body.
func pyDataclassFields(t *testing.T, file, class string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(b), "\nclass "+class+":\n")
	if !ok {
		t.Fatalf("%s: no class %s", file, class)
	}
	if i := regexp.MustCompile(`\n\S`).FindStringIndex(body); i != nil {
		body = body[:i[0]]
	}
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^    ([a-z_][a-z0-9_]*): `).FindAllStringSubmatch(body, -1) {
		names = append(names, m[1])
	}
	return names
}

// tsSchemaFields lists the members of components.schemas.name in the
// TypeScript SDK's schema.d.ts (generated from docs/openapi.json).
func tsSchemaFields(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(tsSchemaFile)
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(b), "\n        "+name+": {\n")
	if !ok {
		t.Fatalf("%s: no schema %s", tsSchemaFile, name)
	}
	body, _, _ = strings.Cut(body, "\n        };")
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^            ([a-z_][a-z0-9_]*)\??: `).FindAllStringSubmatch(body, -1) {
		names = append(names, m[1])
	}
	return names
}

func sameMembers(t *testing.T, where string, got, want []string) {
	t.Helper()
	g, w := slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))
	if !slices.Equal(g, w) {
		t.Errorf("%s declares %v;\nthe hub's type has %v", where, g, w)
	}
}

func TestSetupParityWithTheHub(t *testing.T) {
	issued := jsonMembers(reflect.TypeFor[agentproto.Issued]())
	creds := jsonMembers(reflect.TypeFor[hosts.Credentials]())
	hub := jsonMembers(reflect.TypeFor[agentproto.PayloadHub]())
	if len(issued) < 9 {
		t.Fatalf("agentproto.Issued has %v", issued)
	}
	for _, name := range issued {
		if !slices.Contains(creds, name) {
			t.Errorf("hosts.Credentials lacks the issued member %s", name)
		}
	}
	sameMembers(t, "agentproto.PayloadHub", hub, issued)

	// Of the setup file's members, exactly the issued ones cross the API.
	setup := jsonMembers(reflect.TypeFor[agentproto.Setup]())
	for _, m := range []struct {
		where   string
		members []string
	}{{"hosts.Credentials", creds}, {"agentproto.PayloadHub", hub}} {
		var shared []string
		for _, name := range m.members {
			if slices.Contains(setup, name) {
				shared = append(shared, name)
			}
		}
		sameMembers(t, m.where+" (its agent setup members)", shared, issued)
	}

	sameMembers(t, "Go SDK Credentials", jsonMembers(reflect.TypeFor[Credentials]()), creds)
	sameMembers(t, "Go SDK PayloadHub", jsonMembers(reflect.TypeFor[PayloadHub]()), hub)
	sameMembers(t, "Python SDK Credentials ("+pyTypesFile+")", pyDataclassFields(t, pyTypesFile, "Credentials"), creds)
	sameMembers(t, "Python SDK PayloadHub ("+pyProvisioningFile+")", pyDataclassFields(t, pyProvisioningFile, "PayloadHub"), hub)
	sameMembers(t, "TypeScript SDK Credentials ("+tsSchemaFile+")", tsSchemaFields(t, "Credentials"), creds)
	sameMembers(t, "TypeScript SDK PayloadHub ("+tsSchemaFile+")", tsSchemaFields(t, "PayloadHub"), hub)
}

// The parsers above find what they should: a member added to a mirror
// alone is seen.
func TestSetupParityParsers(t *testing.T) {
	if got := pyDataclassFields(t, pyProvisioningFile, "PayloadHub"); !slices.Contains(got, "agent_pubkey") || slices.Contains(got, "username") {
		t.Errorf("Python PayloadHub fields %v", got)
	}
	if got := tsSchemaFields(t, "PayloadHub"); !slices.Contains(got, "listen_port") || slices.Contains(got, "hub") {
		t.Errorf("TypeScript PayloadHub fields %v", got)
	}
	type withExtra struct {
		agentproto.Issued
		L1Listen string `json:"l1_listen"`
	}
	if got := jsonMembers(reflect.TypeFor[withExtra]()); !slices.Contains(got, "l1_listen") || !slices.Contains(got, "host_id") {
		t.Errorf("jsonMembers %v", got)
	}
}
