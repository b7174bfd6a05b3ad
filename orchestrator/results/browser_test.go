package results

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// checkScript runs in the browser after load: it counts, per chart, the
// drawn elements with a non-zero bounding box and records script errors,
// then writes both into attributes of <body> for --dump-dom to show.
const checkScript = `<script>
window.__errors = [];
window.addEventListener("error", function (e) { window.__errors.push(String(e.message)); });
window.addEventListener("load", function () {
  var out = [];
  document.querySelectorAll("svg.chart, svg.topology").forEach(function (svg) {
    var box = svg.getBoundingClientRect();
    var drawn = 0;
    svg.querySelectorAll("rect, line, polyline, text").forEach(function (el) {
      var r = el.getBoundingClientRect();
      if (r.width > 0 || r.height > 0) { drawn++; }
    });
    var marks = 0;
    // Data marks (a sweep's point markers too), or the note a chart draws
    // when all its data is zero.
    svg.querySelectorAll("rect.bar, g.node rect, text.note, circle.point").forEach(function (el) {
      var r = el.getBoundingClientRect();
      if (r.width > 0 && r.height > 0) { marks++; }
    });
    // A flat line (a variant that never paused) has zero height.
    svg.querySelectorAll("polyline.line").forEach(function (el) {
      var r = el.getBoundingClientRect();
      if (r.width > 0 || r.height > 0) { marks++; }
    });
    out.push({kind: svg.getAttribute("data-chart"), w: box.width, h: box.height, drawn: drawn, marks: marks});
  });
  document.body.setAttribute("data-check", JSON.stringify(out));
  document.body.setAttribute("data-errors", JSON.stringify(window.__errors));
});
</script>`

type chartCheck struct {
	Kind  string  `json:"kind"`
	W     float64 `json:"w"`
	H     float64 `json:"h"`
	Drawn int     `json:"drawn"`
	Marks int     `json:"marks"`
}

// TestReportInBrowser opens report.html in headless Chromium and checks
// that it loads without errors and that every chart draws something.
// It runs with CI=true or -tags browser; outside CI it skips when Chromium
// is not installed.
func TestReportInBrowser(t *testing.T) {
	inCI := os.Getenv("CI") == "true"
	if !inCI && !browserTag {
		t.Skip("browser check runs with CI=true or -tags browser")
	}
	chromium := "/usr/bin/chromium"
	if _, err := os.Stat(chromium); err != nil {
		if p, lerr := exec.LookPath("chromium"); lerr == nil {
			chromium = p
		} else if inCI {
			t.Fatalf("chromium is not installed (%v); install it (apt-get install chromium) for the report browser check", err)
		} else {
			t.Skipf("chromium is not installed at %s; skipping the report browser check", chromium)
		}
	}
	// LABCTL_REPORT_HTML checks an existing report (for example one of a
	// real simulator run) instead of the synthetic ones.
	if report := os.Getenv("LABCTL_REPORT_HTML"); report != "" {
		checkInBrowser(t, chromium, report, 0)
		return
	}
	for _, c := range []struct {
		run    *Run
		charts int
	}{
		// 7 summary, 12 series (records with series per port), 1 topology.
		{syntheticRun("20261129T120000Z-ecn-pfc-64gpu", t0), 20},
		// 7 summary, 3 queue charts and a pause timeline per port and
		// priority, 1 topology.
		{queueRun(), 12},
		// The first run's 7 summary and 9 series charts for three
		// variants, the NCCL chart, 1 topology.
		{ncclRun(), 18},
		// A record of nccl-tests output: its NCCL chart and the topology.
		{nccltestsRecord("20261129T100000Z-nccl-allreduce-64gpu", measuredNCCL()), 2},
	} {
		dir := t.TempDir()
		if err := WriteReports(dir, c.run, testMermaid); err != nil {
			t.Fatal(err)
		}
		checkInBrowser(t, chromium, filepath.Join(dir, ReportHTML), c.charts)
	}
}

// checkInBrowser loads report in headless Chromium and checks that it
// loads without errors and that each of its charts (want of them, when
// want > 0) draws something.
func checkInBrowser(t *testing.T, chromium, report string, want int) {
	t.Helper()
	dir := t.TempDir()
	page, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	// The report's policy forbids every script; the checked copy allows
	// inline ones only, so a load from the network still fails loudly.
	checked := strings.Replace(string(page), "default-src 'none';", "default-src 'none'; script-src 'unsafe-inline';", 1)
	checked = strings.Replace(checked, "</body>", checkScript+"\n</body>", 1)
	target := filepath.Join(dir, "checked.html")
	if err := os.WriteFile(target, []byte(checked), 0o644); err != nil {
		t.Fatal(err)
	}

	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + filepath.Join(dir, "profile"), "--enable-logging=stderr", "--v=0",
		"--window-size=1280,2000", "--virtual-time-budget=5000"}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, append(args, "--dump-dom", "file://"+target)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium --dump-dom: %v\n%s", err, stderr.String())
	}
	for _, pat := range []string{"Uncaught", "Refused to", ":ERROR:CONSOLE", "Failed to load"} {
		if strings.Contains(stderr.String(), pat) {
			t.Errorf("browser log has %q:\n%s", pat, stderr.String())
		}
	}
	dom := stdout.String()
	m := regexp.MustCompile(`data-check="([^"]*)"`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the check script did not run; DOM:\n%s", truncate(dom, 2000))
	}
	var checks []chartCheck
	if err := json.Unmarshal([]byte(htmlUnescape(m[1])), &checks); err != nil {
		t.Fatalf("decode check result %q: %v", m[1], err)
	}
	if e := regexp.MustCompile(`data-errors="([^"]*)"`).FindStringSubmatch(dom); e == nil || htmlUnescape(e[1]) != "[]" {
		t.Errorf("script errors on the page: %v", e)
	}
	if want > 0 && len(checks) != want {
		t.Errorf("%s: %d charts rendered, want %d", report, len(checks), want)
	}
	for _, c := range checks {
		if c.W <= 0 || c.H <= 0 || c.Drawn < 5 || c.Marks < 1 {
			t.Errorf("chart %s did not render: %+v", c.Kind, c)
		}
	}
	t.Logf("%d charts rendered: %+v", len(checks), checks)

	// A screenshot for a person to look at, kept when LABCTL_REPORT_PNG is set.
	if png := os.Getenv("LABCTL_REPORT_PNG"); png != "" {
		shot := exec.CommandContext(ctx, chromium, append(args, "--screenshot="+png, "file://"+report)...)
		if out, err := shot.CombinedOutput(); err != nil {
			t.Errorf("screenshot: %v\n%s", err, out)
		}
	}
}

func htmlUnescape(s string) string {
	return strings.NewReplacer("&quot;", `"`, "&#34;", `"`, "&amp;", "&", "&lt;", "<", "&gt;", ">", "&#39;", "'").Replace(s)
}
