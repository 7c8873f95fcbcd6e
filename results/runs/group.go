package runs

import (
	"fmt"

	"github.com/sharebench/sharebench/vocab"
)

// GroupInfo is run.json's group: the group protocol the run asked for and
// the one the broker ran, read back once the group was ready, so a silent
// fallback (franz-go drops to the classic protocol when the broker refuses
// KIP-848) shows.
type GroupInfo struct {
	// Requested is what the spec asked for: "classic", "consumer" (KIP-848)
	// or "share".
	Requested string `json:"requested"`
	// Protocol is what the broker describes: "classic" (DescribeGroups
	// protocol type consumer), "consumer" (ConsumerGroupDescribe answers)
	// or "share" (ShareGroupDescribe); "" when it could not be read.
	Protocol string `json:"protocol"`
	// Assignor is the assignor the broker reports: the classic group's
	// chosen protocol (cooperative-sticky, sticky, range, roundrobin) or
	// the KIP-848 group's server assignor (uniform, range); share groups
	// use the broker's simple assignor.
	Assignor string `json:"assignor,omitempty"`
	// Rebalance is how the protocol moves partitions: "eager" (classic
	// sticky, range, roundrobin: everything revoked every time),
	// "cooperative" (classic cooperative-sticky: two rounds, only the moved
	// partitions revoked), "incremental" (KIP-848: the coordinator revokes
	// and assigns per member, no group-wide barrier) or "none" (share
	// groups: no partition ownership).
	Rebalance string `json:"rebalance"`
	// Static says the members had group.instance.ids (static_membership).
	Static bool `json:"static,omitempty"`
	// Commit is the consumer group's commit policy (after_processing, auto).
	Commit vocab.Commit `json:"commit,omitempty"`
	// Fallback says the broker ran another protocol than the one asked for.
	Fallback bool `json:"fallback,omitempty"`
	// Error says why the protocol could not be read back.
	Error string `json:"error,omitempty"`
}

// RebalanceOf names how a protocol and assignor rebalance (GroupInfo.Rebalance).
func RebalanceOf(protocol, assignor string) string {
	switch protocol {
	case "share":
		return "none"
	case "consumer":
		return "incremental"
	case "classic":
		if assignor == "cooperative-sticky" {
			return "cooperative"
		}
		if assignor != "" {
			return "eager"
		}
	}
	return ""
}

// FallbackFlag is the validity flag protocol_fallback of a group that ran
// another protocol than the one asked for; nil otherwise (and for nil).
func (g *GroupInfo) FallbackFlag() *Flag {
	if g == nil || !g.Fallback {
		return nil
	}
	return &Flag{Code: CodeProtocolFallback, Message: fmt.Sprintf(
		"group_protocol %s was asked for, but the broker ran the group as %s: the figures are the %s protocol's", g.Requested, g.Protocol, g.Protocol)}
}

// Flag adds f to the run's validity (nil: nothing).
func (v *Validity) Flag(f *Flag) {
	if f == nil {
		return
	}
	v.Flags = append(v.Flags, *f)
	v.Valid = false
}
