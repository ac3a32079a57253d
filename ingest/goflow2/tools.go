//go:build tools

// Package tools pins protoc-gen-go (gen.sh) to the protobuf version in go.mod.
package tools

import _ "google.golang.org/protobuf/cmd/protoc-gen-go"
