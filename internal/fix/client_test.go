package fix_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/testenv"
)

// The tests drive an independent FIX engine, npm jspurefix, through the
// driver in testdata/client (npm ci installs it; CI sets
// BONDVENUE_TEST_REQUIRE_NODE=1, which makes its absence a failure). The
// driver loads its dictionary for seconds, so one process serves every
// test of the package, each with its own session names.
const clientDir = "testdata/client"

var (
	driverOnce sync.Once
	driverErr  error
	theDriver  *driver
)

// driver is the running client process.
type driver struct {
	mu    sync.Mutex
	stdin io.Writer
	lines []fixLine
	cond  *sync.Cond
}

// fixLine is one line the driver printed.
type fixLine struct {
	ID      string `json:"id"`
	Event   string `json:"event"`
	Type    string `json:"type"`
	Seq     int    `json:"seq"`
	PossDup bool   `json:"possdup"`
	Raw     string `json:"raw"`
	Text    string `json:"text"`
	Message string `json:"message"`
}

// field returns the first value of tag in the raw message ("" if absent).
func (l fixLine) field(tag int) string {
	v := l.fields(tag)
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// fields returns every value of tag, in order.
func (l fixLine) fields(tag int) []string {
	var out []string
	prefix := strconv.Itoa(tag) + "="
	for _, f := range strings.Split(l.Raw, "|") {
		if strings.HasPrefix(f, prefix) {
			out = append(out, strings.TrimPrefix(f, prefix))
		}
	}
	return out
}

func startDriver(t *testing.T) *driver {
	t.Helper()
	_, nodeErr := exec.LookPath("node")
	_, modErr := os.Stat(filepath.Join(clientDir, "node_modules", "jspurefix"))
	if nodeErr != nil || modErr != nil {
		if os.Getenv("BONDVENUE_TEST_REQUIRE_NODE") != "" {
			t.Fatalf("the FIX test client is required: node %v, node_modules %v (npm ci --prefix %s)", nodeErr, modErr, clientDir)
		}
		t.Skipf("node or %s/node_modules missing: npm ci --prefix %s", clientDir, clientDir)
	}
	driverOnce.Do(func() {
		out, err := exec.Command(filepath.Join(clientDir, "node_modules", ".bin", "tsc"), "-p", clientDir).CombinedOutput()
		if err != nil {
			driverErr = fmt.Errorf("tsc: %v\n%s", err, out)
			return
		}
		cmd := exec.Command("node", filepath.Join(clientDir, "dist", "client.js"))
		cmd.Stderr = os.Stderr
		in, err := cmd.StdinPipe()
		if err != nil {
			driverErr = err
			return
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			driverErr = err
			return
		}
		if err := cmd.Start(); err != nil {
			driverErr = err
			return
		}
		d := &driver{stdin: in}
		d.cond = sync.NewCond(&d.mu)
		go func() {
			sc := bufio.NewScanner(stdout)
			sc.Buffer(make([]byte, 1<<20), 4<<20)
			for sc.Scan() {
				var l fixLine
				if json.Unmarshal(sc.Bytes(), &l) != nil {
					continue
				}
				d.mu.Lock()
				d.lines = append(d.lines, l)
				d.cond.Broadcast()
				d.mu.Unlock()
			}
		}()
		theDriver = d
	})
	if driverErr != nil {
		t.Fatal(driverErr)
	}
	return theDriver
}

// do sends one command.
func (d *driver) do(t *testing.T, cmd map[string]any) {
	t.Helper()
	b, err := json.Marshal(cmd)
	if err != nil {
		t.Fatal(err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, err := d.stdin.Write(append(b, '\n')); err != nil {
		t.Fatal(err)
	}
}

// fixSession is one session of the driver, as a test sees it.
type fixSession struct {
	d    *driver
	name string
	next int // index of the first line not yet consumed by wait
	used map[int]bool
}

func (d *driver) session(name string) *fixSession {
	d.mu.Lock()
	n := len(d.lines)
	d.mu.Unlock()
	return &fixSession{d: d, name: name, next: n, used: map[int]bool{}}
}

// wait returns the first unconsumed line of the session that matches,
// waiting for it as long as the test has time (dictionary load included
// on first use).
func (s *fixSession) wait(t *testing.T, what string, match func(fixLine) bool) fixLine {
	t.Helper()
	deadline, limited := testenv.Deadline(t)
	expired := false
	if limited {
		timer := time.AfterFunc(time.Until(deadline), func() {
			s.d.mu.Lock()
			expired = true
			s.d.cond.Broadcast()
			s.d.mu.Unlock()
		})
		defer timer.Stop()
	}
	s.d.mu.Lock()
	defer s.d.mu.Unlock()
	for {
		for i := s.next; i < len(s.d.lines); i++ {
			l := s.d.lines[i]
			if l.ID == s.name && !s.used[i] && match(l) {
				s.used[i] = true
				return l
			}
		}
		if expired {
			var seen []string
			for i := s.next; i < len(s.d.lines); i++ {
				if l := s.d.lines[i]; l.ID == s.name {
					seen = append(seen, l.Event+" "+l.Raw+l.Text+l.Message)
				}
			}
			t.Fatalf("session %s: no %s when the test's time ran out; it saw:\n%s", s.name, what, strings.Join(seen, "\n"))
		}
		s.d.cond.Wait()
	}
}

// msg waits for an application or admin message of type typ for which
// match holds (nil: any).
func (s *fixSession) msg(t *testing.T, typ string, match func(fixLine) bool) fixLine {
	t.Helper()
	return s.wait(t, "message 35="+typ, func(l fixLine) bool {
		return l.Event == "msg" && l.Type == typ && (match == nil || match(l))
	})
}

// none fails if a message of type typ matching arrives within d.
func (s *fixSession) none(t *testing.T, typ string, d time.Duration, match func(fixLine) bool) {
	t.Helper()
	time.Sleep(d)
	s.d.mu.Lock()
	defer s.d.mu.Unlock()
	for i := s.next; i < len(s.d.lines); i++ {
		l := s.d.lines[i]
		if l.ID == s.name && !s.used[i] && l.Event == "msg" && l.Type == typ && (match == nil || match(l)) {
			t.Errorf("session %s: unexpected 35=%s %s", s.name, typ, l.Raw)
		}
	}
}

// drain marks every line received so far as seen.
func (s *fixSession) drain() {
	s.d.mu.Lock()
	defer s.d.mu.Unlock()
	for i := s.next; i < len(s.d.lines); i++ {
		s.used[i] = true
	}
}

// send sends an application message from [tag, value] pairs.
func (s *fixSession) send(t *testing.T, typ string, fields ...any) {
	t.Helper()
	if len(fields)%2 != 0 {
		t.Fatal("send: tag without value")
	}
	var pairs [][2]any
	for i := 0; i < len(fields); i += 2 {
		pairs = append(pairs, [2]any{fields[i], fmt.Sprint(fields[i+1])})
	}
	s.d.do(t, map[string]any{"op": "send", "id": s.name, "type": typ, "fields": pairs})
}
