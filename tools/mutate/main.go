// Command mutate is a small mutation tester: it applies one mutation at a
// time to the target files of a package (through go test -overlay, so the
// source tree is never changed), runs the package's tests with a timeout,
// and reports which mutants the tests killed and which survived.
//
// Mutations: comparison operators flipped or moved off by one (== !=, < <=,
// > >=), + and - swapped, * and / swapped, && and || swapped, ++ and --
// swapped, integer constants in function bodies off by one, and statements
// that only call a counter's Add (or Store) removed. Constants returned
// beside a non-nil error are not mutated (errorReturnValues: callers discard
// them, so such a mutant is equivalent).
//
// Usage: go run ./tools/mutate -pkg ./results -files recorder.go,ledger.go [-timeout 60s] [-run regexp]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

type mutant struct {
	file       string // absolute path
	start, end int    // byte offsets replaced
	repl       string
	desc       string
	line       int
}

func main() {
	pkg := flag.String("pkg", "", "package directory, e.g. ./results")
	files := flag.String("files", "", "comma-separated files of the package to mutate (default: every non-test .go file)")
	timeout := flag.Duration("timeout", 60*time.Second, "per-mutant test timeout")
	run := flag.String("run", "", "go test -run pattern (default: all tests)")
	funcs := flag.String("funcs", "", "comma-separated function names to mutate (default: all)")
	verbose := flag.Bool("v", false, "print killed mutants too")
	flag.Parse()
	if *pkg == "" {
		fmt.Fprintln(os.Stderr, "mutate: -pkg is required")
		os.Exit(2)
	}
	dir, err := filepath.Abs(*pkg)
	check(err)
	var targets []string
	if *files == "" {
		all, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range all {
			if !strings.HasSuffix(f, "_test.go") {
				targets = append(targets, f)
			}
		}
	} else {
		for _, f := range strings.Split(*files, ",") {
			targets = append(targets, filepath.Join(dir, strings.TrimSpace(f)))
		}
	}
	only := map[string]bool{}
	for _, f := range strings.Split(*funcs, ",") {
		if f != "" {
			only[f] = true
		}
	}
	var ms []mutant
	for _, f := range targets {
		ms = append(ms, mutants(f, only)...)
	}
	// The unmutated tests must pass.
	if out, ok, _ := runTests(dir, *run, *timeout, nil); !ok {
		fmt.Fprintf(os.Stderr, "mutate: tests fail before any mutation:\n%s\n", out)
		os.Exit(1)
	}
	tmp, err := os.MkdirTemp("", "mutate")
	check(err)
	defer os.RemoveAll(tmp)
	var killed, survived, invalid int
	for i, m := range ms {
		src, err := os.ReadFile(m.file)
		check(err)
		mutated := append(append(append([]byte{}, src[:m.start]...), m.repl...), src[m.end:]...)
		mf := filepath.Join(tmp, fmt.Sprintf("m%d.go", i))
		check(os.WriteFile(mf, mutated, 0o644))
		ov := filepath.Join(tmp, "overlay.json")
		b, _ := json.Marshal(map[string]any{"Replace": map[string]string{m.file: mf}})
		check(os.WriteFile(ov, b, 0o644))
		out, ok, buildFailed := runTests(dir, *run, *timeout, &ov)
		where := fmt.Sprintf("%s:%d: %s", filepath.Base(m.file), m.line, m.desc)
		switch {
		case buildFailed:
			invalid++
		case ok:
			survived++
			fmt.Printf("SURVIVED %s\n", where)
		default:
			killed++
			if *verbose {
				fmt.Printf("killed   %s\n", where)
			}
		}
		_ = out
	}
	total := killed + survived
	rate := 100.0
	if total > 0 {
		rate = 100 * float64(killed) / float64(total)
	}
	fmt.Printf("mutate %s: %d mutants, %d killed, %d survived, %d not compiling: kill rate %.1f%%\n",
		*pkg, total, killed, survived, invalid, rate)
}

// runTests runs the package's tests; buildFailed reports a mutant that does
// not compile (neither killed nor survived).
func runTests(dir, run string, timeout time.Duration, overlay *string) (out []byte, ok, buildFailed bool) {
	args := []string{"test", "-count=1", "-failfast", "-timeout", timeout.String()}
	if overlay != nil {
		args = append(args, "-overlay", *overlay)
	}
	if run != "" {
		args = append(args, "-run", run)
	}
	args = append(args, ".")
	ctx, cancel := context.WithTimeout(context.Background(), timeout+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err == nil {
		return out, true, false
	}
	bf := bytes.Contains(out, []byte("[build failed]")) || bytes.Contains(out, []byte("[setup failed]")) ||
		bytes.Contains(out, []byte("go: ")) && !bytes.Contains(out, []byte("--- FAIL"))
	return out, false, bf
}

var swaps = map[token.Token][]token.Token{
	token.EQL: {token.NEQ}, token.NEQ: {token.EQL},
	token.LSS: {token.LEQ, token.GEQ}, token.LEQ: {token.LSS, token.GTR},
	token.GTR: {token.GEQ, token.LEQ}, token.GEQ: {token.GTR, token.LSS},
	token.ADD: {token.SUB}, token.SUB: {token.ADD},
	token.MUL: {token.QUO}, token.QUO: {token.MUL},
	token.LAND: {token.LOR}, token.LOR: {token.LAND},
}

func mutants(file string, only map[string]bool) []mutant {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	check(err)
	src, err := os.ReadFile(file)
	check(err)
	off := func(p token.Pos) int { return fset.Position(p).Offset }
	line := func(p token.Pos) int { return fset.Position(p).Line }
	var out []mutant
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil || len(only) > 0 && !only[fd.Name.Name] {
			continue
		}
		skip := errorReturnValues(fd.Body)
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if skip[n] {
				return false
			}
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if isStringy(n) {
					return true
				}
				for _, to := range swaps[n.Op] {
					o := off(n.OpPos)
					out = append(out, mutant{file, o, o + len(n.Op.String()), to.String(),
						fmt.Sprintf("%s → %s", n.Op, to), line(n.OpPos)})
				}
			case *ast.IncDecStmt:
				to := map[token.Token]string{token.INC: "--", token.DEC: "++"}[n.Tok]
				o := off(n.TokPos)
				out = append(out, mutant{file, o, o + 2, to, fmt.Sprintf("%s → %s", n.Tok, to), line(n.TokPos)})
			case *ast.BasicLit:
				if n.Kind != token.INT {
					return true
				}
				v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
				if err != nil {
					return true
				}
				o := off(n.Pos())
				out = append(out, mutant{file, o, o + len(n.Value), strconv.FormatInt(v+1, 10),
					fmt.Sprintf("constant %s → %d", n.Value, v+1), line(n.Pos())})
			case *ast.ExprStmt:
				if c, ok := n.X.(*ast.CallExpr); ok {
					if sel, ok := c.Fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Add" || sel.Sel.Name == "Store") {
						o, e := off(n.Pos()), off(n.End())
						out = append(out, mutant{file, o, e, "", "remove " + strings.TrimSpace(string(src[o:e])), line(n.Pos())})
					}
				}
			}
			return true
		})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].start < out[j].start })
	return out
}

// errorReturnValues returns the constants a function returns beside a
// non-nil error (`return 0, 0, err`, `return 0, fmt.Errorf(...)`): by Go
// convention callers discard the other results when the error is set, so
// changing them makes an equivalent mutant, not a missing test. The error is
// recognised by shape (types are not loaded): the last result is an
// identifier whose name contains "err", or a call of fmt.Errorf, errors.New,
// errors.Join or any function or method whose name ends in Errorf. A bare
// `nil` last result does not count: `return 0, nil` is a real value.
func errorReturnValues(body *ast.BlockStmt) map[ast.Node]bool {
	skip := map[ast.Node]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		r, ok := n.(*ast.ReturnStmt)
		if !ok || len(r.Results) < 2 || !isErrorExpr(r.Results[len(r.Results)-1]) {
			return true
		}
		for _, v := range r.Results[:len(r.Results)-1] {
			if l, ok := v.(*ast.BasicLit); ok {
				skip[l] = true
			}
			if u, ok := v.(*ast.UnaryExpr); ok && u.Op == token.SUB {
				if l, ok := u.X.(*ast.BasicLit); ok {
					skip[l] = true
				}
			}
		}
		return true
	})
	return skip
}

func isErrorExpr(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name != "nil" && strings.Contains(strings.ToLower(e.Name), "err")
	case *ast.CallExpr:
		if sel, ok := e.Fun.(*ast.SelectorExpr); ok {
			if pkg, ok := sel.X.(*ast.Ident); ok {
				switch pkg.Name + "." + sel.Sel.Name {
				case "fmt.Errorf", "errors.New", "errors.Join":
					return true
				}
			}
			return strings.HasSuffix(sel.Sel.Name, "Errorf")
		}
	}
	return false
}

// isStringy skips string concatenation and comparisons with string
// literals (messages, not measurement).
func isStringy(b *ast.BinaryExpr) bool {
	for _, e := range []ast.Expr{b.X, b.Y} {
		if l, ok := e.(*ast.BasicLit); ok && l.Kind == token.STRING {
			return true
		}
	}
	return false
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(2)
	}
}
