package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/spf13/cobra"

	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

func newScenariosCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "scenarios", Short: "List the built-in scenarios; show a built-in or a scenario file"}
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Args:  cobra.NoArgs,
		Short: "List the built-in scenarios with their descriptions",
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, n := range scenarios.BuiltinNames() {
				sc, err := scenarios.Builtin(n)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%-22s %d run(s), %d expectation(s)  %s\n",
					n, len(sc.Runs), len(sc.Expectations), sc.Description)
			}
			return nil
		},
	}, newScenariosShowCmd())
	return cmd
}

func newScenariosShowCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show NAME|FILE",
		Short: "Validate and print a scenario (a built-in name or a YAML file): its source, its runs and its expectations; runs nothing",
		Example: "  sharebench scenarios show partition-cap\n" +
			"  sharebench scenarios show ./my-workload.yaml --json",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			src, sc, err := openShown(args[0])
			if err != nil {
				return usageError(err)
			}
			if !asJSON {
				header := sc.Source
				if !isScenarioFile(args[0]) {
					header += ".yaml"
				}
				return showScenario(cmd.OutOrStdout(), header, src, sc)
			}
			b, err := json.MarshalIndent(sc, "", "  ")
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), string(b))
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the resolved scenario (every run's spec, the expectations) as JSON")
	return cmd
}

// openShown loads a scenario as written (no environment or --set
// overrides): a file when ref names one or looks like a path, else a
// built-in. It returns the YAML source too.
func openShown(ref string) ([]byte, *scenarios.Scenario, error) {
	if isScenarioFile(ref) {
		src, err := scenarios.ReadFileLimited(ref)
		if err != nil {
			return nil, nil, err
		}
		sc, err := scenarios.Load(ref, nil, nil)
		return src, sc, err
	}
	src, err := scenarios.BuiltinSource(ref)
	if err != nil {
		return nil, nil, err
	}
	sc, err := scenarios.Builtin(ref)
	return src, sc, err
}

// showScenario prints the YAML source, the runs it expands to and the
// expectations as the report will state them.
func showScenario(w io.Writer, header string, src []byte, sc *scenarios.Scenario) error {
	fmt.Fprintf(w, "# %s\n%s\n", header, src)
	fmt.Fprintf(w, "runs (%d):\n", len(sc.Runs))
	for i, r := range sc.Runs {
		fmt.Fprintf(w, "  %s  %s\n", sc.RunName(i), r.Summary())
	}
	if len(sc.Expectations) == 0 {
		fmt.Fprintln(w, "expectations: none")
		return nil
	}
	fmt.Fprintf(w, "expectations (%d):\n", len(sc.Expectations))
	for _, e := range sc.Expectations {
		fmt.Fprintf(w, "  - %s: %s", e.Name, runs.Claim(e))
		if e.PerClient {
			fmt.Fprint(w, ", per client")
		}
		fmt.Fprintln(w)
		for _, c := range slices.Sorted(maps.Keys(e.ClientSkips)) {
			fmt.Fprintf(w, "      client %s: skipped (%s)\n", c, e.ClientSkips[c])
		}
	}
	return nil
}
