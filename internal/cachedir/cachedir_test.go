package cachedir

import (
	"errors"
	"testing"
)

func TestCacheDir(t *testing.T) {
	home := func() (string, error) { return "/home/u", nil }
	noHome := func() (string, error) { return "", errors.New("no home") }
	for _, tc := range []struct {
		name string
		env  map[string]string
		home func() (string, error)
		want string
	}{
		{"sharebench wins", map[string]string{"SHAREBENCH_CACHE": "/c", "XDG_CACHE_HOME": "/x"}, home, "/c"},
		{"xdg", map[string]string{"XDG_CACHE_HOME": "/x"}, home, "/x/sharebench"},
		{"relative xdg ignored", map[string]string{"XDG_CACHE_HOME": "x"}, home, "/home/u/.cache/sharebench"},
		{"home", nil, home, "/home/u/.cache/sharebench"},
		{"no home", nil, noHome, ""},
	} {
		got, err := root(func(k string) string { return tc.env[k] }, tc.home)
		if tc.want == "" {
			if err == nil {
				t.Errorf("%s: got %q, want an error", tc.name, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: got %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}
