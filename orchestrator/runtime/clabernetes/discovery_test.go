package clabernetes

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/runtime/clab/doctor"
)

// fakeDiscovery is an API server with only what Reachable and checkCRD
// ask for, behind a proxy's path prefix: /version, the clabernetes group
// version's resources, and the Topology CRD, whose reading is forbidden.
// token is the one credential it takes.
type fakeDiscovery struct {
	token      string
	resources  string // the group version's resource list, "" for a 404
	versionRaw string // the body of /version
	hang       bool   // /version answers only when the request is cancelled
}

const fakePrefix = "/k8s/clusters/c-1"

func (f *fakeDiscovery) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// An error as the API server sends it.
	status := func(code int, reason metav1.StatusReason, msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
			Status: metav1.StatusFailure, Message: msg, Reason: reason, Code: int32(code)})
	}
	if r.Header.Get("Authorization") != "Bearer "+f.token {
		status(http.StatusUnauthorized, metav1.StatusReasonUnauthorized, "Unauthorized")
		return
	}
	p, ok := strings.CutPrefix(r.URL.Path, fakePrefix)
	if !ok {
		http.NotFound(w, r)
		return
	}
	switch p {
	case "/version":
		if f.hang {
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(f.versionRaw))
	case "/apis/" + APIVersion:
		if f.resources == "" {
			status(http.StatusNotFound, metav1.StatusReasonNotFound, "the server could not find the requested resource")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(f.resources))
	case "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + TopologyCRD:
		status(http.StatusForbidden, metav1.StatusReasonForbidden, "customresourcedefinitions.apiextensions.k8s.io \""+TopologyCRD+"\" is forbidden")
	default:
		status(http.StatusNotFound, metav1.StatusReasonNotFound, "the server could not find the requested resource")
	}
}

// fakeCluster connects to f with token.
func fakeCluster(t *testing.T, f *fakeDiscovery, token string) *Cluster {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c, err := newCluster(&Cluster{Namespace: "labs"}, &rest.Config{Host: srv.URL + fakePrefix, BearerToken: token})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const topologiesList = `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"` + APIVersion + `","resources":[` +
	`{"name":"topologies","singularName":"topology","namespaced":true,"kind":"Topology","verbs":["get","list","create"]},` +
	`{"name":"imagerequests","singularName":"imagerequest","namespaced":true,"kind":"ImageRequest","verbs":["get"]}]}`

// Reachable names the server's version; rejected credentials, an
// unreachable server and an answer that is no version are environment
// errors that say which.
func TestReachableWithoutDiscoveryClient(t *testing.T) {
	ctx := context.Background()
	f := &fakeDiscovery{token: "good", versionRaw: `{"major":"1","minor":"37","gitVersion":"v1.37.2"}`}
	if v, err := fakeCluster(t, f, "good").Reachable(ctx); err != nil || v != "v1.37.2" {
		t.Errorf("Reachable = %q, %v; want v1.37.2", v, err)
	}

	c := fakeCluster(t, f, "expired")
	_, err := c.Reachable(ctx)
	if err == nil || !strings.Contains(err.Error(), "refused labctl's credentials (401)") || exitcode.Code(err) != exitcode.Environment {
		t.Errorf("a rejected token: exit %d, %v", exitcode.Code(err), err)
	}
	if _, err := c.serverVersion(ctx); !apierrors.IsUnauthorized(err) {
		t.Errorf("a 401 is not Unauthorized to apierrors: %v", err)
	}

	bad := &fakeDiscovery{token: "good", versionRaw: `<html>`}
	if _, err := fakeCluster(t, bad, "good").Reachable(ctx); err == nil || !strings.Contains(err.Error(), "unable to parse the server version") || !strings.Contains(err.Error(), "is not reachable") {
		t.Errorf("not a version: %v", err)
	}

	srv := httptest.NewServer(f)
	srv.Close()
	gone, err := newCluster(&Cluster{}, &rest.Config{Host: srv.URL, BearerToken: "good"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gone.Reachable(ctx); err == nil || !strings.Contains(err.Error(), "is not reachable") || exitcode.Code(err) != exitcode.Environment {
		t.Errorf("a closed server: exit %d, %v", exitcode.Code(err), err)
	}
}

// The version request is bounded by the caller's context and by the
// request timeout of every API call.
func TestReachableHonoursContextAndTimeout(t *testing.T) {
	c := fakeCluster(t, &fakeDiscovery{token: "good", hang: true}, "good")
	if c.discovery.Client.Timeout != requestTimeout {
		t.Errorf("HTTP client timeout %v, want %v", c.discovery.Client.Timeout, requestTimeout)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := c.Reachable(ctx); err == nil || !strings.Contains(err.Error(), "is not reachable") {
		t.Errorf("a hanging server: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Reachable took %v past its context's deadline", d)
	}
}

// Without read access to CRDs, checkCRD finds the Topology resource in
// the group version's resource list, and fails when the list lacks it or
// the group version is not served.
func TestCheckCRDFallsBackToResourceList(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, resources string
		status          doctor.Status
		detail          string
	}{
		{"served", topologiesList, doctor.Warn, "topologies is served"},
		{"no topologies", strings.Replace(topologiesList, `"name":"topologies"`, `"name":"other"`, 1), doctor.Fail, "serves no topologies"},
		{"no group version", "", doctor.Fail, "the API server serves no " + APIVersion},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fakeCluster(t, &fakeDiscovery{token: "good", resources: tc.resources}, "good")
			ck := checkCRD(ctx, c)
			if ck.Status != tc.status || !strings.Contains(ck.Detail, tc.detail) {
				t.Errorf("checkCRD = %+v, want %s with %q", ck, tc.status, tc.detail)
			}
		})
	}

	c := fakeCluster(t, &fakeDiscovery{token: "good", resources: topologiesList}, "good")
	list, err := c.serverResources(ctx, APIVersion)
	if err != nil || list.GroupVersion != APIVersion || len(list.APIResources) != 2 || list.APIResources[0].Kind != "Topology" || !list.APIResources[0].Namespaced {
		t.Errorf("serverResources = %+v, %v", list, err)
	}
	c = fakeCluster(t, &fakeDiscovery{token: "good"}, "good")
	if _, err := c.serverResources(ctx, APIVersion); !apierrors.IsNotFound(err) || !strings.Contains(err.Error(), "could not find the requested resource") {
		t.Errorf("an unserved group version: %v", err)
	}
}
