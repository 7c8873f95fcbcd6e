package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

func newScenariosCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "scenarios", Short: "List and show the built-in scenarios"}
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
		Use:   "show NAME",
		Short: "Print a built-in scenario's YAML source, its runs and its expectations",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !asJSON {
				return showScenario(cmd.OutOrStdout(), args[0])
			}
			sc, err := scenarios.Builtin(args[0])
			if err != nil {
				return err
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

// showScenario prints the YAML source, the runs it expands to and the
// expectations as the report will state them.
func showScenario(w io.Writer, name string) error {
	src, err := scenarios.BuiltinSource(name)
	if err != nil {
		return err
	}
	sc, err := scenarios.Builtin(name)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "# %s%s.yaml\n%s\n", scenarios.BuiltinPrefix, name, src)
	fmt.Fprintf(w, "runs (%d):\n", len(sc.Runs))
	for i, r := range sc.Runs {
		fmt.Fprintf(w, "  %s  %s\n", sc.RunName(i), r.Label())
	}
	if len(sc.Expectations) == 0 {
		fmt.Fprintln(w, "expectations: none")
		return nil
	}
	fmt.Fprintf(w, "expectations (%d):\n", len(sc.Expectations))
	for _, e := range sc.Expectations {
		fmt.Fprintf(w, "  - %s: %s\n", e.Name, runs.Claim(e))
	}
	return nil
}
