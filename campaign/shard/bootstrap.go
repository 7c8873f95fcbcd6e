package shard

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// CheckBootstrap checks one bootstrap address that something inside a
// cluster dials (an agent pod, KEDA's operator): host:port with a numeric
// port from 1 to 65535 and a host that is an IP address or a DNS name
// (DNS-1123 subdomain, any case), so white space, control characters and
// YAML punctuation never reach a manifest; a loopback address is refused,
// since inside a pod it names the pod itself. The error names
// --bootstrap and the value.
func CheckBootstrap(a string) error {
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		var ae *net.AddrError
		if errors.As(err, &ae) {
			err = errors.New(ae.Err) // without the address, given quoted here
		}
		return fmt.Errorf("--bootstrap %q: expected host:port: %v", a, err)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("--bootstrap %q: port %q: expected a number from 1 to 65535", a, port)
	}
	ip := net.ParseIP(host)
	if ip == nil {
		if msgs := validation.IsDNS1123Subdomain(strings.ToLower(host)); len(msgs) > 0 {
			return fmt.Errorf("--bootstrap %q: host %q: expected an IP address or a DNS name: %s", a, host, strings.Join(msgs, "; "))
		}
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") || ip != nil && (ip.IsLoopback() || ip.IsUnspecified()) {
		return fmt.Errorf("--bootstrap %q: a loopback address names the pod itself; give addresses the pods reach (a Service name, a broker's routable address)", a)
	}
	return nil
}
