//go:build ignore

// gen_docs writes docs/reference/scenario-keys.md and docs/reference/scenario.schema.json
// from this package's source. Run it with go generate ./scenarios (or
// make docs); TestGeneratedDocsUpToDate fails when they are stale.
package main

import (
	"log"

	"github.com/sharebench/sharebench/internal/gendoc"
)

func main() {
	if err := gendoc.Generate(".."); err != nil {
		log.Fatalf("gen_docs: %v", err)
	}
}
