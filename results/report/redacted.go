package report

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/sharebench/sharebench/internal/redact"
)

// redactAll masks every secret in the values ptrs point to (a campaign, its
// records, a comparison) before they are formatted: the one redaction path
// of every rendering. Redacting the finished page instead misses secrets the
// formatting changed (report.html HTML-escapes the quotes of a
// sasl.jaas.config, so password=&#34;…&#34; no longer reads as a setting).
// Each value goes through JSON, as on disk: marshalled, masked by
// redact.Bytes, decoded into a fresh value; fields JSON does not carry
// (json:"-") keep their value, masked as text where they are strings.
func redactAll(ptrs ...any) error {
	for _, p := range ptrs {
		v := reflect.ValueOf(p).Elem()
		b, err := json.Marshal(v.Interface())
		if err != nil {
			return fmt.Errorf("redacting before rendering: %w", err)
		}
		fresh := reflect.New(v.Type())
		if err := json.Unmarshal(redact.Bytes(b), fresh.Interface()); err != nil {
			return fmt.Errorf("redacting before rendering: %w", err)
		}
		keepUnserialized(fresh.Elem(), v)
		v.Set(fresh.Elem())
	}
	return nil
}

// keepUnserialized copies the json:"-" fields of the structs in old (and in
// slices of them) into fresh, strings and string slices masked.
func keepUnserialized(fresh, old reflect.Value) {
	switch old.Kind() {
	case reflect.Slice:
		for i := 0; i < old.Len() && i < fresh.Len(); i++ {
			keepUnserialized(fresh.Index(i), old.Index(i))
		}
	case reflect.Struct:
		t := old.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() || f.Tag.Get("json") != "-" {
				continue
			}
			switch v := old.Field(i).Interface().(type) {
			case string:
				fresh.Field(i).SetString(redact.Text(v))
			case []string:
				out := make([]string, len(v))
				for j, s := range v {
					out[j] = redact.Text(s)
				}
				fresh.Field(i).Set(reflect.ValueOf(out))
			default:
				fresh.Field(i).Set(old.Field(i))
			}
		}
	}
}
