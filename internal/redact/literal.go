package redact

import (
	"encoding/json"
	"html"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// jsonString is v as it appears inside a JSON string.
func jsonString(v string) string {
	b, _ := json.Marshal(v)
	return string(b[1 : len(b)-1])
}

// Secrets given as values (a SASL password, an OAUTHBEARER token, an AWS
// secret key) carry no tell-tale key next to them in an error or a log
// line. AddSecret registers such a value: Text replaces every occurrence
// of it with Mask from then on, wherever it appears.

var literals struct {
	sync.RWMutex
	vals []string
	r    *strings.Replacer
}

// minSecretLen is the shortest value AddSecret registers: shorter ones
// would mask ordinary words.
const minSecretLen = 4

// AddSecret registers a secret value; short or empty values are ignored.
func AddSecret(v string) {
	if len(v) < minSecretLen {
		return
	}
	literals.Lock()
	defer literals.Unlock()
	for _, s := range literals.vals {
		if s == v {
			return
		}
	}
	// The value as JSON, HTML and a URL write it, too: a secret holding a
	// quote or an ampersand is masked in every file, whatever escaped it.
	for _, form := range []string{v, jsonString(v), html.EscapeString(v), url.QueryEscape(v)} {
		if !slices.Contains(literals.vals, form) {
			literals.vals = append(literals.vals, form)
		}
	}
	// Longest first: a secret that contains another is masked whole.
	var pairs []string
	vals := append([]string(nil), literals.vals...)
	for i := range vals {
		for j := i + 1; j < len(vals); j++ {
			if len(vals[j]) > len(vals[i]) {
				vals[i], vals[j] = vals[j], vals[i]
			}
		}
	}
	for _, s := range vals {
		pairs = append(pairs, s, Mask)
	}
	literals.r = strings.NewReplacer(pairs...)
}

// literalSecrets masks the registered secrets in s.
func literalSecrets(s string) string {
	literals.RLock()
	r := literals.r
	literals.RUnlock()
	if r == nil {
		return s
	}
	return r.Replace(s)
}

// ForgetSecrets drops every value AddSecret registered. A process starts
// with none; tests that run many sharebench invocations in one process
// call it between them, so that each invocation is masked by its own
// registrations and not by a secret an earlier one registered.
func ForgetSecrets() {
	literals.Lock()
	defer literals.Unlock()
	literals.vals, literals.r = nil, nil
}
