//go:build ignore

// gen_docs writes docs/reference/poc-profile.md and
// docs/reference/poc-profile.schema.json from this package's source. Run it with go
// generate ./poc (or make docs); TestGeneratedDocsUpToDate fails when they
// are stale.
package main

import (
	"log"

	"github.com/sharebench/sharebench/internal/gendoc"
)

func main() {
	if err := gendoc.GenerateProfile(".."); err != nil {
		log.Fatalf("gen_docs: %v", err)
	}
}
