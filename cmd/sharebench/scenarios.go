package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sharebench/sharebench/scenarios"
)

func newScenariosCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "scenarios", Short: "List and show the built-in scenarios"}
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List the built-in scenarios",
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, n := range scenarios.BuiltinNames() {
				sc, err := scenarios.Builtin(n)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%-16s %d run(s)  %s\n", n, len(sc.Runs), sc.Description)
			}
			return nil
		},
	}, &cobra.Command{
		Use:   "show NAME",
		Short: "Print a built-in scenario's resolved runs as JSON",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
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
	})
	return cmd
}
