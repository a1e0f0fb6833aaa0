package hub

import "hostgate/internal/httpapi"

// OpenAPI is the document this hub serves at /v1/openapi.json, indented,
// without opening any store (`hostgate openapi`).
func OpenAPI() ([]byte, error) { return httpapi.Document(Version) }
