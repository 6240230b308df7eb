// Package browsertest starts headless Chromium (Debian's chromium) for page
// tests driven with chromedp. One place for the flags, so that every page
// test starts the browser the same way.
package browsertest

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"tabula/internal/refdata/refdatatest"
)

// New starts a headless Chromium and returns a chromedp context for one tab,
// cancelled (and the browser stopped) when the test ends or after timeout.
// Where chromium is missing the test is skipped, or fails under
// TABULA_REQUIRE_ALL (see refdatatest.Program).
func New(tb testing.TB, timeout time.Duration) context.Context {
	tb.Helper()
	path := refdatatest.Program(tb, "chromium", "apt-get install chromium")
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox, // Debian's chromium runs as root only without the sandbox
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 1024),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx, chromedp.WithLogf(tb.Logf))
	ctx, cancelTimeout := context.WithTimeout(ctx, timeout)
	tb.Cleanup(func() {
		cancelTimeout()
		cancelCtx()
		cancelAlloc()
	})
	// Start the browser now, so that a failure to start is reported here.
	if err := chromedp.Run(ctx); err != nil {
		tb.Fatalf("starting chromium %s: %v", path, err)
	}
	return ctx
}
