package main

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	hostgate "hostgate/sdk/go"
)

// printJSON writes v as indented JSON to stdout.
func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func newTable(w io.Writer) *tabwriter.Writer { return tabwriter.NewWriter(w, 0, 0, 2, ' ', 0) }

// row writes one tab-separated table row.
func row(w io.Writer, cells ...string) { fmt.Fprintln(w, strings.Join(cells, "\t")) }

func (a *app) hostTable(hosts []hostgate.Host) error {
	t := newTable(a.stdout)
	row(t, "ID", "NAME", "STATUS", "ONLINE", "OS", "VERSION", "LAST SEEN", "TAGS")
	for _, h := range hosts {
		row(t, h.ID, h.Name, h.Status, yesNo(h.Online), dash(h.OS), dash(h.InstalledVersion), timeOrDash(h.LastSeenAt), tagsText(h.Tags))
	}
	return t.Flush()
}

// hostDetails writes one host as "field value" lines.
func (a *app) hostDetails(h hostgate.Host) error {
	t := newTable(a.stdout)
	for _, f := range [][2]string{
		{"id", h.ID}, {"name", h.Name}, {"status", h.Status}, {"online", yesNo(h.Online)},
		{"bid", strconv.FormatInt(h.BID, 10)}, {"listen_port", strconv.Itoa(h.ListenPort)},
		{"os", dash(h.OS)}, {"installed_version", dash(h.InstalledVersion)}, {"public_ip", dash(h.PublicIP)},
		{"report_url", dash(h.ReportURL)}, {"last_seen_at", timeOrDash(h.LastSeenAt)},
		{"last_online_at", timeOrDash(h.LastOnlineAt)}, {"tags", tagsText(h.Tags)}, {"created_at", stamp(h.CreatedAt)},
	} {
		row(t, f[0]+":", f[1])
	}
	return t.Flush()
}

// credentials writes install credentials; their secrets are shown once.
func (a *app) credentials(c hostgate.Credentials) error {
	t := newTable(a.stdout)
	rows := append(credentialRows(c),
		[2]string{"install (Linux)", c.InstallCommand.Shell}, [2]string{"install (Windows)", c.InstallCommand.PowerShell})
	for _, f := range rows {
		if f[1] != "" {
			row(t, f[0]+":", f[1])
		}
	}
	if err := t.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(a.stderr, "hostgate-cli: the secret key and install token are shown only this once")
	return nil
}

// credentialsNotShown are the members of the credentials the table
// leaves out: the report URL (hosts show it), the executable (the install
// lines fetch it) and the install lines, shown by name after the rest.
var credentialsNotShown = []string{"url", "exe_url", "exe_sha256", "install_command"}

// credentialRows are c's members as name and value, in the order of the
// SDK's Credentials, so that a member added to the agent setup (and, by
// the SDK parity test, to the SDK) is shown without a change here.
func credentialRows(c hostgate.Credentials) [][2]string {
	var rows [][2]string
	v := reflect.ValueOf(c)
	for _, f := range reflect.VisibleFields(v.Type()) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || slices.Contains(credentialsNotShown, name) {
			continue
		}
		switch x := v.FieldByIndex(f.Index).Interface().(type) {
		case string:
			rows = append(rows, [2]string{name, x})
		case int:
			rows = append(rows, [2]string{name, strconv.Itoa(x)})
		case int64:
			rows = append(rows, [2]string{name, strconv.FormatInt(x, 10)})
		case time.Time:
			rows = append(rows, [2]string{name, stamp(x)})
		}
	}
	return rows
}

func (a *app) deliveryTable(ds []hostgate.WebhookDelivery) error {
	t := newTable(a.stdout)
	row(t, deliveryHeader...)
	for _, d := range ds {
		row(t, deliveryCells(d)...)
	}
	return t.Flush()
}

var deliveryHeader = []string{"ID", "EVENT", "FORMAT", "STATUS", "ATTEMPTS", "HTTP", "CREATED", "LAST ERROR"}

func deliveryCells(d hostgate.WebhookDelivery) []string {
	httpStatus := "-"
	if d.HTTPStatus != nil {
		httpStatus = strconv.Itoa(*d.HTTPStatus)
	}
	return []string{d.ID, d.EventType, d.Format, d.Status, strconv.Itoa(d.Attempts), httpStatus, stamp(d.CreatedAt), dash(d.LastError)}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// stamp is t in UTC to the second, "-" for the zero time.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

func timeOrDash(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return stamp(*t)
}
