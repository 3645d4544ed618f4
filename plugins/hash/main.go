// Command hash is a wasmtools plugin that hashes and encodes text: SHA-256,
// SHA-1, MD5 and SHA-512 digests, and base64, base64url and hex encoding
// and decoding. Both tools are read-only and concurrency-safe.
//
// Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o hash.wasm .
package main

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash"
	"strings"
	"unicode/utf8"

	"github.com/wasmtools/wasmtools/abi"
	guest "github.com/wasmtools/wasmtools/sdk-guest"
)

// HashInput is the input of the hash tool.
type HashInput struct {
	Text          string `json:"text" jsonschema:"the text to hash (or its encoded bytes, see input_encoding)"`
	Algorithm     string `json:"algorithm,omitempty" enum:"sha256,sha1,md5,sha512" jsonschema:"the hash function (default sha256)"`
	InputEncoding string `json:"input_encoding,omitempty" enum:"text,base64,hex" jsonschema:"how text encodes the bytes to hash: text (UTF-8, the default), base64 or hex"`
	Output        string `json:"output,omitempty" enum:"hex,base64" jsonschema:"how to write the digest (default hex)"`
}

// EncodeInput is the input of the encode tool.
type EncodeInput struct {
	Text      string `json:"text" jsonschema:"the text to encode, or the encoded text to decode"`
	Operation string `json:"operation" enum:"encode,decode" jsonschema:"encode text into the format, or decode text from it"`
	Format    string `json:"format" enum:"base64,base64url,hex" jsonschema:"base64 (standard, padded), base64url (URL-safe, unpadded) or hex"`
}

func init() {
	guest.SetInfo(guest.PluginInfo{Name: "hash", Version: "1.0.0"})
	guest.Register(guest.Tool[HashInput, guest.Result]{
		Name:            "hash",
		Description:     "Computes the SHA-256, SHA-1, MD5 or SHA-512 digest of text (or of bytes given in base64 or hex), written in hex or base64.",
		ReadOnly:        true,
		ConcurrencySafe: true,
		Call:            hashCall,
	})
	guest.Register(guest.Tool[EncodeInput, guest.Result]{
		Name:            "encode",
		Description:     "Encodes text to base64, base64url or hex, or decodes it back. Decoded bytes that are not UTF-8 text come back as a data block.",
		ReadOnly:        true,
		ConcurrencySafe: true,
		Call:            encodeCall,
	})
}

func hashCall(_ *guest.Call, in HashInput) (guest.Result, error) {
	algorithm := strings.ToLower(in.Algorithm)
	if algorithm == "" {
		algorithm = "sha256"
	}
	var h hash.Hash
	switch algorithm {
	case "sha256":
		h = sha256.New()
	case "sha1":
		h = sha1.New()
	case "md5":
		h = md5.New()
	case "sha512":
		h = sha512.New()
	default:
		return guest.Result{}, fmt.Errorf("unknown algorithm %q: use sha256, sha1, md5 or sha512", in.Algorithm)
	}
	n, err := hashInput(h, in.Text, in.InputEncoding)
	if err != nil {
		return guest.Result{}, err
	}
	sum := h.Sum(nil)
	var out string
	switch in.Output {
	case "", "hex":
		out = hex.EncodeToString(sum)
	case "base64":
		out = base64.StdEncoding.EncodeToString(sum)
	default:
		return guest.Result{}, fmt.Errorf("unknown output %q: use hex or base64", in.Output)
	}
	return guest.Result{
		Content:  []abi.Block{guest.Text(out)},
		Metadata: map[string]any{"algorithm": algorithm, "bytes": n},
	}, nil
}

// hashInput writes the bytes text stands for into h and returns their
// number. A long plain text goes through a buffer: a copy of the whole
// text would double the memory of a call on a large input. (The buffer
// is not on the stack: a call that grows the goroutine's stack by 32 KiB
// costs more than hashing a short text.)
func hashInput(h hash.Hash, text, encoding string) (int, error) {
	if encoding != "" && encoding != "text" {
		data, err := decodeBytes(text, encoding)
		h.Write(data)
		return len(data), err
	}
	if len(text) <= chunk {
		h.Write([]byte(text))
		return len(text), nil
	}
	buf := make([]byte, chunk)
	for s := text; s != ""; {
		n := copy(buf, s)
		h.Write(buf[:n])
		s = s[n:]
	}
	return len(text), nil
}

// chunk is the size of hashInput's buffer.
const chunk = 64 << 10

func decodeBytes(text, encoding string) ([]byte, error) {
	switch encoding {
	case "", "text":
		return []byte(text), nil
	case "base64":
		b, err := decodeBase64(text)
		if err != nil {
			return nil, fmt.Errorf("text is not base64: %v", err)
		}
		return b, nil
	case "hex":
		b, err := hex.DecodeString(strings.TrimSpace(text))
		if err != nil {
			return nil, fmt.Errorf("text is not hex: %v", err)
		}
		return b, nil
	}
	return nil, fmt.Errorf("unknown input_encoding %q: use text, base64 or hex", encoding)
}

// decodeBase64 accepts standard and URL-safe base64, padded or not.
func decodeBase64(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if strings.ContainsAny(s, "-_") {
		return base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	}
	return base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
}

func encodeCall(_ *guest.Call, in EncodeInput) (guest.Result, error) {
	meta := map[string]any{"operation": in.Operation, "format": in.Format}
	switch in.Operation {
	case "encode":
		var out string
		switch in.Format {
		case "base64":
			out = base64.StdEncoding.EncodeToString([]byte(in.Text))
		case "base64url":
			out = base64.RawURLEncoding.EncodeToString([]byte(in.Text))
		case "hex":
			out = hex.EncodeToString([]byte(in.Text))
		default:
			return guest.Result{}, fmt.Errorf("unknown format %q: use base64, base64url or hex", in.Format)
		}
		return guest.Result{Content: []abi.Block{guest.Text(out)}, Metadata: meta}, nil
	case "decode":
		var b []byte
		var err error
		switch in.Format {
		case "base64", "base64url":
			b, err = decodeBase64(in.Text)
		case "hex":
			b, err = hex.DecodeString(strings.TrimSpace(in.Text))
		default:
			return guest.Result{}, fmt.Errorf("unknown format %q: use base64, base64url or hex", in.Format)
		}
		if err != nil {
			return guest.Result{}, fmt.Errorf("text is not valid %s: %v", in.Format, err)
		}
		meta["bytes"] = len(b)
		if !utf8.Valid(b) {
			return guest.Result{
				Content: []abi.Block{
					guest.Text(fmt.Sprintf("The decoded %d bytes are not UTF-8 text; they are attached as data.", len(b))),
					guest.Data("application/octet-stream", b),
				},
				Metadata: meta,
			}, nil
		}
		return guest.Result{Content: []abi.Block{guest.Text(string(b))}, Metadata: meta}, nil
	}
	return guest.Result{}, fmt.Errorf("unknown operation %q: use encode or decode", in.Operation)
}

func main() {}
