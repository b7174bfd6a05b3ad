package dockerapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
)

// Version is the engine's own version (GET /version).
type Version struct {
	Version    string `json:"Version"`    // "20.10.24+dfsg1"
	APIVersion string `json:"ApiVersion"` // the newest API it speaks
}

// ServerVersion asks the engine its version.
func (c *Client) ServerVersion(ctx context.Context) (Version, error) {
	var v Version
	err := c.call(ctx, http.MethodGet, "/version", nil, nil, &v)
	return v, err
}

// ContainerState is the State of a container's inspect.
type ContainerState struct {
	Status   string `json:"Status"` // created, running, exited, …
	Running  bool   `json:"Running"`
	ExitCode int    `json:"ExitCode"`
	Pid      int    `json:"Pid"`
	Health   *struct {
		Status string `json:"Status"` // starting, healthy, unhealthy
	} `json:"Health,omitempty"`
}

// ContainerInfo is the part of GET /containers/{name}/json labctl reads.
type ContainerInfo struct {
	ID    string          `json:"Id"`
	Name  string          `json:"Name"`
	State *ContainerState `json:"State"`
}

// ContainerInspect inspects a container by name or ID.
func (c *Client) ContainerInspect(ctx context.Context, name string) (ContainerInfo, error) {
	var info ContainerInfo
	err := c.call(ctx, http.MethodGet, "/containers/"+esc(name)+"/json", nil, nil, &info)
	return info, err
}

// ContainerSummary is one entry of a container list.
type ContainerSummary struct {
	ID    string   `json:"Id"`
	Names []string `json:"Names"` // "/leaf1"
}

// ContainerList lists containers (stopped ones too when all is true) that
// match every filter: a key as the engine knows it ("label", "network",
// "name") and the values of which any may match.
func (c *Client) ContainerList(ctx context.Context, all bool, filters map[string][]string) ([]ContainerSummary, error) {
	q := url.Values{}
	if all {
		q.Set("all", "1")
	}
	if len(filters) > 0 {
		f, err := encodeFilters(filters)
		if err != nil {
			return nil, err
		}
		q.Set("filters", f)
	}
	var list []ContainerSummary
	err := c.call(ctx, http.MethodGet, "/containers/json", q, nil, &list)
	return list, err
}

// encodeFilters writes filters as the engine reads them since API 1.22:
// {"label": {"containerlab=64gpu": true}}.
func encodeFilters(filters map[string][]string) (string, error) {
	m := make(map[string]map[string]bool, len(filters))
	keys := make([]string, 0, len(filters))
	for k := range filters {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		vs := map[string]bool{}
		for _, v := range filters[k] {
			vs[v] = true
		}
		m[k] = vs
	}
	b, err := json.Marshal(m)
	return string(b), err
}

// ContainerConfig is what a container is created with: the fields labctl
// sets of the engine's Config and HostConfig.
type ContainerConfig struct {
	Image      string
	Entrypoint []string
	Cmd        []string
	Labels     map[string]string
	Privileged bool
	CapAdd     []string
}

// ContainerCreate creates (does not start) a container named name and
// returns its ID.
func (c *Client) ContainerCreate(ctx context.Context, name string, cfg ContainerConfig) (string, error) {
	type hostConfig struct {
		Privileged bool     `json:"Privileged,omitempty"`
		CapAdd     []string `json:"CapAdd,omitempty"`
	}
	body := struct {
		Image      string            `json:"Image"`
		Entrypoint []string          `json:"Entrypoint,omitempty"`
		Cmd        []string          `json:"Cmd,omitempty"`
		Labels     map[string]string `json:"Labels,omitempty"`
		HostConfig hostConfig        `json:"HostConfig"`
	}{cfg.Image, cfg.Entrypoint, cfg.Cmd, cfg.Labels, hostConfig{cfg.Privileged, cfg.CapAdd}}
	q := url.Values{}
	if name != "" {
		q.Set("name", name)
	}
	var out struct {
		ID string `json:"Id"`
	}
	if err := c.call(ctx, http.MethodPost, "/containers/create", q, body, &out); err != nil {
		return "", err
	}
	return out.ID, nil
}

// ContainerStart starts a created container.
func (c *Client) ContainerStart(ctx context.Context, name string) error {
	return c.call(ctx, http.MethodPost, "/containers/"+esc(name)+"/start", nil, nil, nil)
}

// RemoveOptions says how a container is removed.
type RemoveOptions struct {
	Force   bool // stop it first if it runs
	Volumes bool // remove its anonymous volumes too
}

// ContainerRemove removes a container.
func (c *Client) ContainerRemove(ctx context.Context, name string, opt RemoveOptions) error {
	q := url.Values{}
	if opt.Force {
		q.Set("force", "1")
	}
	if opt.Volumes {
		q.Set("v", "1")
	}
	return c.call(ctx, http.MethodDelete, "/containers/"+esc(name), q, nil, nil)
}

// ContainerStatPath reports whether path exists in a container's file
// system (the container need not run): nil when it does, an error that
// IsNotFound when it does not.
func (c *Client) ContainerStatPath(ctx context.Context, name, path string) error {
	return c.call(ctx, http.MethodHead, "/containers/"+esc(name)+"/archive", url.Values{"path": {path}}, nil, nil)
}

// ImageInspect inspects an image by reference or ID and returns its ID.
func (c *Client) ImageInspect(ctx context.Context, ref string) (string, error) {
	var out struct {
		ID string `json:"Id"`
	}
	err := c.call(ctx, http.MethodGet, "/images/"+ref+"/json", nil, nil, &out)
	return out.ID, err
}

// ImageSummary is one entry of the image list.
type ImageSummary struct {
	ID       string   `json:"Id"`
	RepoTags []string `json:"RepoTags"`
}

// ImageList lists the engine's local images.
func (c *Client) ImageList(ctx context.Context) ([]ImageSummary, error) {
	var list []ImageSummary
	err := c.call(ctx, http.MethodGet, "/images/json", nil, nil, &list)
	return list, err
}

// NetworkInfo is the part of a network's inspect labctl reads.
type NetworkInfo struct {
	ID         string                     `json:"Id"`
	Name       string                     `json:"Name"`
	Containers map[string]json.RawMessage `json:"Containers"` // running endpoints, by container ID
}

// NetworkInspect inspects a network by name or ID.
func (c *Client) NetworkInspect(ctx context.Context, name string) (NetworkInfo, error) {
	var n NetworkInfo
	err := c.call(ctx, http.MethodGet, "/networks/"+esc(name), nil, nil, &n)
	return n, err
}

// NetworkRemove removes a network.
func (c *Client) NetworkRemove(ctx context.Context, name string) error {
	return c.call(ctx, http.MethodDelete, "/networks/"+esc(name), nil, nil, nil)
}

// ExecConfig is a command to run in a container.
type ExecConfig struct {
	Cmd          []string `json:"Cmd"`
	Env          []string `json:"Env,omitempty"`
	User         string   `json:"User,omitempty"`
	AttachStdout bool     `json:"AttachStdout"`
	AttachStderr bool     `json:"AttachStderr"`
}

// ExecCreate sets a command up to run in a container and returns the exec
// instance's ID.
func (c *Client) ExecCreate(ctx context.Context, ctr string, cfg ExecConfig) (string, error) {
	var out struct {
		ID string `json:"Id"`
	}
	if err := c.call(ctx, http.MethodPost, "/containers/"+esc(ctr)+"/exec", nil, cfg, &out); err != nil {
		return "", err
	}
	return out.ID, nil
}

// ExecAttach starts an exec instance and returns its output: stdout and
// stderr multiplexed in frames (Demux splits them), until the command
// ends. The engine takes the connection over for the stream, so it is not
// tied to ctx once started: closing the stream ends it.
func (c *Client) ExecAttach(ctx context.Context, id string) (io.ReadCloser, error) {
	// The engine answers a start without an Upgrade header with a plain
	// 200 and the raw stream to the connection's end, which net/http reads
	// as a body of unknown length.
	resp, err := c.do(context.WithoutCancel(ctx), http.MethodPost, "/exec/"+esc(id)+"/start", nil, map[string]bool{"Detach": false, "Tty": false})
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// ExecStartDetached starts an exec instance and returns at once.
func (c *Client) ExecStartDetached(ctx context.Context, id string) error {
	return c.call(ctx, http.MethodPost, "/exec/"+esc(id)+"/start", nil, map[string]bool{"Detach": true, "Tty": false}, nil)
}

// ExecInfo is the part of an exec instance's inspect labctl reads.
type ExecInfo struct {
	Running  bool `json:"Running"`
	ExitCode int  `json:"ExitCode"`
	Pid      int  `json:"Pid"` // on the engine's host
}

// ExecInspect inspects an exec instance.
func (c *Client) ExecInspect(ctx context.Context, id string) (ExecInfo, error) {
	var out ExecInfo
	err := c.call(ctx, http.MethodGet, "/exec/"+esc(id)+"/json", nil, nil, &out)
	return out, err
}

// Demux copies a multiplexed exec stream to stdout and stderr: frames of an
// 8-byte header (stream 1 or 2, three zero bytes, the payload's length, big
// endian) and the payload. It returns nil at the stream's end between
// frames.
func Demux(stdout, stderr io.Writer, r io.Reader) error {
	var hdr [8]byte
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			if err == io.EOF {
				return nil
			}
			return fmt.Errorf("exec stream: frame header: %w", err)
		}
		n := int64(hdr[4])<<24 | int64(hdr[5])<<16 | int64(hdr[6])<<8 | int64(hdr[7])
		var w io.Writer
		switch hdr[0] {
		case 0, 1: // stdin (echoed with a TTY) goes with stdout
			w = stdout
		case 2:
			w = stderr
		case 3: // the engine's own error, ending the stream
			b, _ := io.ReadAll(io.LimitReader(r, n))
			return fmt.Errorf("exec stream: engine error: %s", b)
		default:
			return fmt.Errorf("exec stream: frame of unknown stream %d", hdr[0])
		}
		if _, err := io.CopyN(w, r, n); err != nil {
			return fmt.Errorf("exec stream: frame of %d bytes: %w", n, err)
		}
	}
}
