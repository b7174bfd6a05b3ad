package devssh

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/scrapli/scrapligo/driver/network"
)

func TestRedact(t *testing.T) {
	base := errors.New("auth failed for s3cret")
	err := RedactErr(base, "s3cret")
	if strings.Contains(err.Error(), "s3cret") || !errors.Is(err, base) {
		t.Errorf("RedactErr = %q (Is original: %v)", err, errors.Is(err, base))
	}
	if RedactErr(base, "") != base || Redact("x", "") != "x" {
		t.Error("an empty secret must change nothing")
	}
}

// A closed port on loopback fails at the connect stage, quickly, with no
// password in the message.
func TestSessionConnectFailure(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err = Session(ctx, Target{Name: "leaf1", Host: "127.0.0.1", Port: port, Username: "admin", Password: "s3cret", Timeout: 5 * time.Second},
		"arista_eos", time.Minute, func(*network.Driver) error { return nil })
	var se *StageError
	if !errors.As(err, &se) || se.Stage != "connect" || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("Session to a closed port = %v", err)
	}
}
