// Package sshtest runs a scripted network device behind a real SSH server on
// loopback, so configuration pushes are tested over the same SSH client code
// that talks to real switches: login, a prompt, echo of typed input, command
// output, password failures and commands that never return.
package sshtest

import (
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gliderlabs/ssh"
)

// Device is one login session's command interpreter.
type Device interface {
	// Prompt is printed after login and after every command.
	Prompt() string
	// Run handles one typed line and returns its output. hang makes the
	// device never answer (no output, no prompt), as a stuck command does.
	Run(line string) (output string, hang bool)
}

// Server is a running SSH server.
type Server struct {
	Host string
	Port int

	srv *ssh.Server
	mu  sync.Mutex
	log []string // lines typed, across sessions
}

// Lines returns every line typed into the device so far.
func (s *Server) Lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

// Start serves on a free loopback port until the test ends. Logins must use
// user and password; newDevice makes one Device per session.
func Start(t testing.TB, user, password, banner string, newDevice func() Device) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen on loopback: %v", err)
	}
	s := &Server{Host: "127.0.0.1", Port: ln.Addr().(*net.TCPAddr).Port}
	s.srv = &ssh.Server{
		PasswordHandler: func(ctx ssh.Context, p string) bool { return ctx.User() == user && p == password },
		Handler: func(sess ssh.Session) {
			s.serve(sess, banner, newDevice())
		},
	}
	go func() { _ = s.srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = s.srv.Shutdown(ctx)
		_ = s.srv.Close()
	})
	return s
}

// Addr is host:port.
func (s *Server) Addr() string { return net.JoinHostPort(s.Host, strconv.Itoa(s.Port)) }

func (s *Server) serve(sess ssh.Session, banner string, d Device) {
	w := func(str string) bool {
		_, err := io.WriteString(sess, str)
		return err == nil
	}
	if banner != "" && !w(banner) {
		return
	}
	if !w(d.Prompt()) {
		return
	}
	buf := make([]byte, 1024)
	var line []byte
	lastCR := false
	for {
		n, err := sess.Read(buf)
		if err != nil {
			return
		}
		for _, b := range buf[:n] {
			if b == '\n' && lastCR {
				lastCR = false
				continue
			}
			lastCR = b == '\r'
			if b != '\r' && b != '\n' {
				line = append(line, b)
				// A terminal echoes what is typed; clients wait for it.
				if !w(string(b)) {
					return
				}
				continue
			}
			typed := string(line)
			line = line[:0]
			s.mu.Lock()
			s.log = append(s.log, typed)
			s.mu.Unlock()
			out, hang := d.Run(typed)
			if hang {
				<-sess.Context().Done()
				return
			}
			if out != "" && out[len(out)-1] != '\n' {
				out += "\n"
			}
			if !w("\n" + out + d.Prompt()) {
				return
			}
			if errors.Is(sess.Context().Err(), context.Canceled) {
				return
			}
		}
	}
}

// ClosedPort returns a loopback port with nothing listening on it: connects
// to it are refused at once.
func ClosedPort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen on loopback: %v", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	return port
}
