package main

import (
	"fmt"

	"github.com/sharebench/sharebench/infra"
	"github.com/spf13/cobra"
)

// newJarsCmd prints the directory of the Maven-resolved broker jars of a
// Kafka version, resolving them first if needed; `make image` copies that
// directory into the local container image.
func newJarsCmd() *cobra.Command {
	var kafkaVersion string
	cmd := &cobra.Command{
		Use:   "jars",
		Short: "Resolve the Kafka broker jars (and the JMX exporter agent) and print their directory",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := infra.ResolveJars(cmd.Context(), kafkaVersion, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), dir)
			return nil
		},
	}
	cmd.Flags().StringVar(&kafkaVersion, "kafka-version", infra.DefaultKafkaVersion, "Apache Kafka release")
	return cmd
}
