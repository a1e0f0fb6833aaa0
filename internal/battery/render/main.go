// Command render writes the figures of the last battery run into
// docs/reliability.md: `go run ./internal/battery/render FIGURES.jsonl DOC`.
// `make reliability` runs the tests with HOSTGATE_BATTERY_OUT set, then this.
package main

import (
	"fmt"
	"os"

	"hostgate/internal/battery"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: render FIGURES.jsonl DOC.md")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "render:", err)
		os.Exit(1)
	}
}

func run(figuresPath, docPath string) error {
	f, err := os.Open(figuresPath)
	if err != nil {
		return err
	}
	defer f.Close()
	figs, err := battery.ReadFigures(f)
	if err != nil {
		return fmt.Errorf("%s: %w", figuresPath, err)
	}
	doc, err := os.ReadFile(docPath)
	if err != nil {
		return err
	}
	out, err := battery.Render(doc, figs)
	if err != nil {
		return fmt.Errorf("%s: %w", docPath, err)
	}
	return os.WriteFile(docPath, out, 0o644)
}
