// This file keeps web/ out of the hostgate Go module: npm packages in
// web/node_modules may carry Go sources of their own (flatted does), which
// `go test ./...`, `go vet ./...` and staticcheck must not pick up.
module hostgate.invalid/web

go 1.26
