//go:build ignore

// gen_figures writes scenarios/figures_gen.go and docs/reference/figures.md from the
// figure registry (figures_table.go). Run it with go generate ./results/runs
// (or make docs); TestGeneratedFiguresUpToDate fails when they are stale.
package main

import (
	"log"

	"github.com/sharebench/sharebench/results/internal/figuregen"
)

func main() {
	if err := figuregen.Generate("../.."); err != nil {
		log.Fatalf("gen_figures: %v", err)
	}
}
