package consumers

import (
	"bufio"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results"
)

// javaVectorsFile holds the cross-language test vectors the Java runner's
// unit tests (VectorsTest.java) check too.
const javaVectorsFile = "javarunner/src/test/resources/vectors.txt"

func readJavaVectors(t *testing.T) [][]string {
	t.Helper()
	f, err := os.Open(javaVectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		rows = append(rows, strings.Fields(line))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

func vu64(t *testing.T, s string) uint64 {
	t.Helper()
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func vi64(t *testing.T, s string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestJavaVectors checks the Go side of the vectors: the stamp layout
// (results.DecodeStamp), the poison and stuck draws (isPoison, isStuck) and the frame layout
// (decodeJavaFrame); VectorsTest.java checks the Java side of the same file.
func TestJavaVectors(t *testing.T) {
	var stamps, poisons, frames, poisoned, stucks, stuck, differ int
	for _, row := range readJavaVectors(t) {
		switch row[0] {
		case "stamp":
			stamps++
			b, err := hex.DecodeString(row[1])
			if err != nil {
				t.Fatal(err)
			}
			st, err := results.DecodeStamp(b)
			want := results.Stamp{Run: vu64(t, row[2]), Producer: uint32(vu64(t, row[3])), Seq: vu64(t, row[4]),
				Intended: vi64(t, row[5]), Sent: vi64(t, row[6])}
			if err != nil || st != want {
				t.Errorf("stamp %s: got %+v, %v; want %+v", row[1], st, err, want)
			}
		case "poison":
			poisons++
			rate, err := strconv.ParseFloat(row[4], 64)
			if err != nil {
				t.Fatal(err)
			}
			st := results.Stamp{Run: vu64(t, row[1]), Producer: uint32(vu64(t, row[2])), Seq: vu64(t, row[3])}
			want := row[5] == "1"
			if want {
				poisoned++
			}
			if got := isPoison(st, rate); got != want {
				t.Errorf("poison %v rate %v: got %v, want %v", st, rate, got, want)
			}
		case "stuck":
			stucks++
			rate, err := strconv.ParseFloat(row[4], 64)
			if err != nil {
				t.Fatal(err)
			}
			st := results.Stamp{Run: vu64(t, row[1]), Producer: uint32(vu64(t, row[2])), Seq: vu64(t, row[3])}
			want := row[5] == "1"
			if want {
				stuck++
			}
			if got := isStuck(st, rate); got != want {
				t.Errorf("stuck %v rate %v: got %v, want %v", st, rate, got, want)
			}
			if isPoison(st, rate) != want {
				differ++
			}
		case "frame":
			frames++
			b, err := hex.DecodeString(row[1])
			if err != nil {
				t.Fatal(err)
			}
			f, err := decodeJavaFrame(b)
			want := javaFrame{Kind: javaFrameKind(vu64(t, row[2])), Flags: uint8(vu64(t, row[3])), Member: uint16(vu64(t, row[4])),
				N: int32(vi64(t, row[5])), Producer: uint32(vu64(t, row[6])), Run: vu64(t, row[7]), Seq: vu64(t, row[8]),
				Intended: vi64(t, row[9]), At: vi64(t, row[10]), Aux: vi64(t, row[11])}
			if err != nil || f != want {
				t.Errorf("frame %s: got %+v, %v; want %+v", row[1], f, err, want)
			}
			if got := hex.EncodeToString(want.encode()); got != row[1] {
				t.Errorf("encode %+v: got %s, want %s", want, got, row[1])
			}
		default:
			t.Errorf("unknown vector kind %q", row[0])
		}
	}
	if stamps < 3 || poisons < 100 || frames < 3 || poisoned == 0 || poisoned == poisons {
		t.Errorf("too few vectors: %d stamps, %d poison (%d poisoned), %d frames", stamps, poisons, poisoned, frames)
	}
	// The stuck draw is salted: on the same records it must disagree with
	// the poison draw somewhere, or the two would wedge and reject together.
	if stucks < 100 || stuck == 0 || stuck == stucks || differ == 0 {
		t.Errorf("stuck vectors: %d, %d stuck, %d differing from the poison draw", stucks, stuck, differ)
	}
}
