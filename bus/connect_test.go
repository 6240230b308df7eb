package bus

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestConnectRefusesWhatCannotWork: a web address is refused at once, and a
// host that does not resolve after a few tries, each with an error that
// says what is wrong, instead of retrying forever.
func TestConnectRefusesWhatCannotWork(t *testing.T) {
	for _, c := range []struct {
		url, want string
		within    time.Duration
	}{
		{"http://127.0.0.1:4222", "is a web address", time.Second},
		{"https://trainer:4222", "is a web address", time.Second},
		{"ftp://trainer:4222", `scheme "ftp"`, time.Second},
		{"nats://:4222", "has no host", time.Second},
		{"nats://no-such-host.invalid:4222", "does not resolve", 20 * time.Second},
		{"nats://127.0.0.1:4222,nats://no-such-host.invalid:4222,http://x:1", "is a web address", time.Second},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
		start := time.Now()
		b, err := Connect(ctx, Options{URL: c.url, Run: "r", Log: quiet})
		cancel()
		if err == nil {
			b.Close()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || time.Since(start) > c.within {
			t.Errorf("Connect(%s): %v after %v, want an error with %q within %v", c.url, err, time.Since(start), c.want, c.within)
		}
	}
}
