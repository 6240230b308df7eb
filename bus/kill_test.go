package bus

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// The test binary doubles as a server process, so that a test can kill
// the server with SIGKILL, as a crash or `kill -9` would.
const serverProcessEnv = "TABULA_BUS_TEST_SERVER_DIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(serverProcessEnv); dir != "" {
		s, err := StartServer(ServerConfig{Dir: dir, Listen: os.Getenv("TABULA_BUS_TEST_SERVER_LISTEN")})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Println(s.URL())
		select {}
	}
	os.Exit(m.Run())
}

// serverProcess starts the embedded server in a child process and returns
// it once it accepts connections.
func serverProcess(t *testing.T, dir, addr string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), serverProcessEnv+"="+dir, "TABULA_BUS_TEST_SERVER_LISTEN="+addr)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "nats://") {
		t.Fatalf("server process: first line %q, %v", line, err)
	}
	return cmd
}

// TestServerKilledLosesNoAcknowledgedGame kills the server process with
// SIGKILL while a publisher is publishing and the trainer consuming, and
// restarts it on the same storage: every game whose publish was
// acknowledged is in the stream, and the consumer delivers every game not
// yet acknowledged to it (a game acknowledged just before the kill may come
// again: delivery is at least once, and the trainer drops repeats by id).
func TestServerKilledLosesNoAcknowledgedGame(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	dir, addr := t.TempDir(), listenAddr(t)
	ctx := testCtx(t)
	srv := serverProcess(t, dir, addr)
	url := "nats://" + addr
	pub := connect(t, Options{URL: url, Name: "w1"})
	sub := connect(t, Options{URL: url, Name: "trainer"})
	c, err := sub.Consumer(ctx, "trainer")
	if err != nil {
		t.Fatal(err)
	}
	const n = 200
	acked := make(chan string, n) // publishes the stream acknowledged
	pubErr := make(chan error, 1)
	go func() {
		for i := range n {
			id := "g" + strconv.Itoa(i)
			if err := pub.PublishGame(ctx, Game{ID: id, Data: []byte("game " + id)}); err != nil {
				pubErr <- err
				return
			}
			acked <- id
		}
		pubErr <- nil
	}()
	consumed := map[string]int{} // games the trainer acknowledged
	consume := func(until func() bool) {
		for !until() {
			ds, err := c.Fetch(ctx, 20, 200*time.Millisecond)
			if err != nil {
				time.Sleep(50 * time.Millisecond) // the server is away: try again
				continue
			}
			for _, d := range ds {
				if string(d.Game.Data) != "game "+d.Game.ID {
					t.Fatalf("game %s: data %q", d.Game.ID, d.Game.Data)
				}
				if err := d.Ack(ctx); err == nil {
					consumed[d.Game.ID]++
				}
			}
		}
	}
	consume(func() bool { return len(consumed) >= n/4 })
	srv.Process.Kill() // SIGKILL: no shutdown, no flush
	srv.Wait()
	time.Sleep(200 * time.Millisecond)
	ackedBefore := len(acked)
	serverProcess(t, dir, addr)
	if err := <-pubErr; err != nil {
		t.Fatalf("publisher: %v", err)
	}
	close(acked)
	if len(acked) != n {
		t.Fatalf("%d publishes acknowledged, want %d", len(acked), n)
	}
	deadline := time.Now().Add(30 * time.Second)
	consume(func() bool { return len(consumed) == n || time.Now().After(deadline) })
	for id := range acked {
		if consumed[id] == 0 {
			t.Errorf("game %s was acknowledged by the stream and never delivered", id)
		}
	}
	again := 0
	for _, k := range consumed {
		again += k - 1
	}
	if msgs, _ := streamMsgs(t, sub); msgs != n {
		t.Errorf("stream holds %d games after the kill, want %d", msgs, n)
	}
	t.Logf("killed after %d acknowledged publishes; %d games delivered again after the restart", ackedBefore, again)
}

// natsMsg publishes a raw message to the stream, for malformed input.
type natsMsg struct {
	subject string
	header  map[string]string
	data    []byte
}

func (m *natsMsg) publish(ctx context.Context, b *Bus) error {
	msg := nats.NewMsg(m.subject)
	for k, v := range m.header {
		msg.Header.Set(k, v)
	}
	msg.Data = m.data
	_, err := b.js.PublishMsg(ctx, msg)
	return err
}
