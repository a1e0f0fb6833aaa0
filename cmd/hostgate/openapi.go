package main

import (
	"fmt"
	"io"

	"hostgate/internal/hub"
)

// openapi prints the OpenAPI document the hub serves, indented, with its
// keys in a stable order; docs/openapi.json is its output, from which the
// console generates its TypeScript types. It reads no configuration and
// opens no store.
func openapi(args []string, stdout io.Writer) error {
	if len(args) != 0 {
		return fmt.Errorf("usage: hostgate openapi")
	}
	b, err := hub.OpenAPI()
	if err != nil {
		return err
	}
	_, err = stdout.Write(b)
	return err
}
