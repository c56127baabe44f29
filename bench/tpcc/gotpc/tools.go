//go:build tools

// Package tools pins go-tpc (the TPC-C driver used by bench/run.sh) as a dependency, so that
// `go build github.com/pingcap/go-tpc/cmd/go-tpc` resolves it through the module proxy.
package tools

import _ "github.com/pingcap/go-tpc/cmd/go-tpc"
