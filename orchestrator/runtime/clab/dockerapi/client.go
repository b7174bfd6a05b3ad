// Package dockerapi is a client of the Docker Engine API for the 15 calls
// labctl makes, and the ping that negotiates the version: containers
// (inspect, list, create, start, remove, stat a path), images (inspect,
// list), networks (inspect, remove), exec (create, start attached or
// detached, inspect) and the engine's version.
//
// labctl used the Docker SDK (github.com/docker/docker/client) for these.
// The SDK's packages initialize in every process that links them, whatever
// the command: compiled regular expressions of image references, digest
// algorithms, OpenTelemetry, some 360 page faults and 1.7 to 7 ms of CPU
// before main ran, paid by every `labctl run` on the simulator, which never
// talks to Docker. The calls themselves are plain HTTP and JSON on the
// engine's socket, versioned and stable since API 1.24, so they are made
// here with net/http; the Docker-backed tests still set their fixtures up
// through the SDK, an independent client of the same engine.
//
// The client finds the engine as the SDK and the docker CLI do: DOCKER_HOST
// (unix:///path or tcp://host:port; default unix:///var/run/docker.sock),
// DOCKER_TLS_VERIFY and DOCKER_CERT_PATH for TLS, DOCKER_API_VERSION to fix
// the API version instead of negotiating it.
package dockerapi

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// DefaultHost is the engine's socket when DOCKER_HOST is unset.
const DefaultHost = "unix:///var/run/docker.sock"

// MaxAPIVersion is the newest API version the client asks for: an engine
// that speaks a newer one is spoken to in this one (engines keep older
// versions), an older engine in its own. The calls made here are the same
// from 1.24 to this version.
const MaxAPIVersion = "1.51"

// fallbackAPIVersion is what an engine that does not say its version (in
// the API-Version header of /_ping) is taken to speak: the oldest version
// whose calls this client makes.
const fallbackAPIVersion = "1.24"

// ErrNotFound is what a call on a container, image, network or exec
// instance that the engine does not have wraps (HTTP 404).
var ErrNotFound = errors.New("not found")

// Error is an engine's answer with an error status.
type Error struct {
	Status  int    // HTTP status
	Message string // the engine's message
}

func (e *Error) Error() string {
	return fmt.Sprintf("Error response from daemon: %s", e.Message)
}

// Is makes errors.Is(err, ErrNotFound) true for a 404.
func (e *Error) Is(target error) bool {
	return target == ErrNotFound && e.Status == http.StatusNotFound
}

// IsNotFound reports whether err is the engine's "no such object".
func IsNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

// Client is a connection to one engine. Its methods are safe for
// concurrent use once Negotiate has returned.
type Client struct {
	host    string // DOCKER_HOST as given (or DefaultHost), for messages
	base    string // URL prefix of every call, without the version
	http    *http.Client
	version string // API version of the calls, "1.41"
	fixed   bool   // version set by DOCKER_API_VERSION: no negotiation
}

// FromEnv returns a client of the engine the environment names. It does
// not connect: Negotiate does.
func FromEnv() (*Client, error) {
	return New(os.Getenv("DOCKER_HOST"), os.Getenv("DOCKER_API_VERSION"), tlsFromEnv)
}

// tlsConfig returns the TLS configuration for a tcp:// engine, nil for
// plain TCP.
type tlsConfig func() (*tls.Config, error)

// tlsFromEnv reads DOCKER_CERT_PATH's ca.pem, cert.pem and key.pem when
// DOCKER_CERT_PATH or DOCKER_TLS_VERIFY is set, as the SDK does: the
// engine's certificate is verified when DOCKER_TLS_VERIFY is non-empty.
func tlsFromEnv() (*tls.Config, error) {
	dir, verify := os.Getenv("DOCKER_CERT_PATH"), os.Getenv("DOCKER_TLS_VERIFY") != ""
	if dir == "" && !verify {
		return nil, nil
	}
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("DOCKER_TLS_VERIFY is set but DOCKER_CERT_PATH is not, and there is no home directory for ~/.docker: %w", err)
		}
		dir = filepath.Join(home, ".docker")
	}
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem"))
	if err != nil {
		return nil, fmt.Errorf("DOCKER_CERT_PATH %s: %w", dir, err)
	}
	// As the docker CLI: the engine's certificate is verified only with
	// DOCKER_TLS_VERIFY; the client's is presented either way.
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, InsecureSkipVerify: !verify}
	if verify {
		ca, err := os.ReadFile(filepath.Join(dir, "ca.pem"))
		if err != nil {
			return nil, fmt.Errorf("DOCKER_CERT_PATH %s: %w", dir, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(ca) {
			return nil, fmt.Errorf("DOCKER_CERT_PATH %s: ca.pem holds no PEM certificate", dir)
		}
		cfg.RootCAs = pool
	}
	return cfg, nil
}

// New returns a client of the engine at host (a DOCKER_HOST value; empty
// for DefaultHost). A non-empty version fixes the API version.
func New(host, version string, tlsCfg tlsConfig) (*Client, error) {
	if host == "" {
		host = DefaultHost
	}
	u, err := url.Parse(host)
	if err != nil {
		return nil, fmt.Errorf("DOCKER_HOST %q: %w", host, err)
	}
	tr := &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 4}
	c := &Client{host: host, http: &http.Client{Transport: tr}}
	switch u.Scheme {
	case "unix":
		path := u.Path
		if path == "" {
			return nil, fmt.Errorf("DOCKER_HOST %q names no socket path (unix:///var/run/docker.sock)", host)
		}
		tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", path)
		}
		// The host part of the URL is not used for a socket; the engine
		// accepts any.
		c.base = "http://docker"
	case "tcp", "http", "https":
		if u.Host == "" {
			return nil, fmt.Errorf("DOCKER_HOST %q names no host:port (tcp://host:2376)", host)
		}
		scheme := "http"
		if u.Scheme == "https" {
			scheme = "https"
		}
		if tlsCfg != nil {
			cfg, err := tlsCfg()
			if err != nil {
				return nil, err
			}
			if cfg != nil {
				tr.TLSClientConfig = cfg
				scheme = "https"
			}
		}
		c.base = scheme + "://" + u.Host + strings.TrimSuffix(u.Path, "/")
	default:
		return nil, fmt.Errorf("DOCKER_HOST %q: scheme %q is not supported (use unix:// or tcp://)", host, u.Scheme)
	}
	if version != "" {
		c.version, c.fixed = strings.TrimPrefix(version, "v"), true
	}
	return c, nil
}

// Host is the engine's address as the environment gave it.
func (c *Client) Host() string { return c.host }

// APIVersion is the API version the client speaks (after Negotiate).
func (c *Client) APIVersion() string { return c.version }

// Close drops the client's idle connections.
func (c *Client) Close() error {
	c.http.CloseIdleConnections()
	return nil
}

// Negotiate pings the engine (so that an unreachable one fails here) and,
// unless DOCKER_API_VERSION fixed it, picks the API version: the engine's,
// or MaxAPIVersion if the engine's is newer.
func (c *Client) Negotiate(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/_ping", nil)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode >= 400 && resp.StatusCode != http.StatusInternalServerError {
		// An engine whose _ping fails with 500 still says its version;
		// anything else is not an engine.
		return fmt.Errorf("ping: HTTP %d", resp.StatusCode)
	}
	if c.fixed {
		return nil
	}
	v := resp.Header.Get("API-Version")
	switch {
	case v == "":
		c.version = fallbackAPIVersion
	case versionLess(MaxAPIVersion, v):
		c.version = MaxAPIVersion
	default:
		c.version = v
	}
	return nil
}

// versionLess reports whether API version a is older than b ("1.9" <
// "1.41").
func versionLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) || i < len(bs); i++ {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			return x < y
		}
	}
	return false
}

// do sends one call: method, path (below the version), query, a JSON body
// (nil for none). It returns the response for a status below 400 and an
// *Error otherwise; the caller closes the body.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, body any) (*http.Response, error) {
	if c.version == "" {
		return nil, errors.New("docker API client used before Negotiate")
	}
	u := c.base + "/v" + c.version + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 400 {
		return resp, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	var m struct {
		Message string `json:"message"`
	}
	msg := strings.TrimSpace(string(b))
	if json.Unmarshal(b, &m) == nil && m.Message != "" {
		msg = m.Message
	}
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	return nil, &Error{Status: resp.StatusCode, Message: msg}
}

// call is do for a call whose answer is JSON into out (nil: discarded).
func (c *Client) call(ctx context.Context, method, path string, query url.Values, body, out any) error {
	resp, err := c.do(ctx, method, path, query, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("%s %s: decode the engine's answer: %w", method, path, err)
	}
	return nil
}

// esc escapes a name or ID for a path segment.
func esc(s string) string { return url.PathEscape(s) }
