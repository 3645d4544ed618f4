package jsontext

import "testing"

func TestDepth(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{``, 0},
		{`1`, 0},
		{`{}`, 1},
		{`{"a":[1,{"b":[]}]}`, 4},
		{`{"a":"[[[{{{"}`, 1},   // brackets in strings do not count
		{`{"a":"\"[[["}`, 1},    // nor after an escaped quote
		{`[[["\\"],[]],{}]`, 3}, // an escaped backslash ends the escape
		{`{"a":[[[`, 4},         // unfinished text still counts
	}
	for _, tt := range tests {
		if got := Depth([]byte(tt.in)); got != tt.want {
			t.Errorf("Depth(%s) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestInvalidUTF8(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", -1},
		{"héllo 日本", -1},
		{"ab\xff", 2},
		{"é\xc3", 2},        // a character cut short
		{"\xed\xa0\x80", 0}, // a surrogate is not UTF-8
	}
	for _, tt := range tests {
		if got := InvalidUTF8(tt.in); got != tt.want {
			t.Errorf("InvalidUTF8(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func FuzzDepth(f *testing.F) {
	f.Add([]byte(`{"a":[1,"]"]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if d := Depth(b); d < 0 || d > len(b) {
			t.Fatalf("Depth = %d for %d bytes", d, len(b))
		}
	})
}
