// Package lsp is Sextant's bridge to external language servers: the
// JSON-RPC framing of the Language Server Protocol, the subset of the
// protocol the tools use, a pool of server processes (one per server and
// workspace root) with their lifecycle, memory limits and deadlines, file
// synchronisation from disk, and the conversion between the positions an
// agent counts (1-based lines, 1-based columns in Unicode characters) and
// the ones a server counts (0-based, in UTF-8 bytes or UTF-16 units).
//
// The package knows nothing of roots, tools or answers: internal/query
// reads files, chooses servers from the configuration and renders answers.
package lsp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// MaxMessage bounds one message's body. A server that announces more is
// broken or hostile; the connection is dropped rather than the memory
// spent.
const MaxMessage = 256 << 20

// maxHeaderLine and maxHeaders bound the header part of a message.
const (
	maxHeaderLine = 1024
	maxHeaders    = 16
)

// ErrFraming is the cause of every malformed-message error, so callers can
// tell a broken stream from a closed one.
var ErrFraming = errors.New("malformed LSP message")

// ReadMessage reads one message framed by a Content-Length header (and
// optionally a Content-Type one) and returns its body. Lines end in CRLF;
// a bare LF is accepted too, as some servers send it.
func ReadMessage(r *bufio.Reader) ([]byte, error) {
	length := -1
	for n := 0; ; n++ {
		if n > maxHeaders {
			return nil, fmt.Errorf("%w: more than %d header lines", ErrFraming, maxHeaders)
		}
		line, err := readLine(r)
		if err != nil {
			if n == 0 && err == io.EOF {
				return nil, io.EOF
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if len(line) == 0 {
			if n == 0 {
				// Tolerate stray blank lines between messages.
				n = -1
				continue
			}
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return nil, fmt.Errorf("%w: header line %q has no colon", ErrFraming, line)
		}
		if !bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
			continue // Content-Type and unknown headers are ignored
		}
		v, err := strconv.Atoi(string(bytes.TrimSpace(value)))
		if err != nil || v < 0 {
			return nil, fmt.Errorf("%w: bad Content-Length %q", ErrFraming, value)
		}
		if length >= 0 && v != length {
			return nil, fmt.Errorf("%w: two different Content-Length headers", ErrFraming)
		}
		length = v
	}
	if length < 0 {
		return nil, fmt.Errorf("%w: no Content-Length header", ErrFraming)
	}
	if length > MaxMessage {
		return nil, fmt.Errorf("%w: Content-Length %d exceeds %d", ErrFraming, length, MaxMessage)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return body, nil
}

// readLine reads one header line without its line ending, refusing lines
// longer than maxHeaderLine.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxHeaderLine+2 {
			return nil, fmt.Errorf("%w: header line longer than %d bytes", ErrFraming, maxHeaderLine)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if len(line) > 0 && err == io.EOF {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		line = bytes.TrimSuffix(line[:len(line)-1], []byte("\r"))
		return line, nil
	}
}

// WriteMessage writes body as one framed message in a single Write, so
// that concurrent writers serialised by the caller never interleave.
func WriteMessage(w io.Writer, body []byte) error {
	buf := make([]byte, 0, len(body)+32)
	buf = append(buf, "Content-Length: "...)
	buf = strconv.AppendInt(buf, int64(len(body)), 10)
	buf = append(buf, "\r\n\r\n"...)
	buf = append(buf, body...)
	_, err := w.Write(buf)
	return err
}
