// Package httpguard holds the checks that tabula's HTTP servers (play web,
// play watch) make on every request before serving it, so that only pages of
// the server itself, reached under a name the server answers to, can use it:
//
//   - Host must name the server: a loopback name (localhost, 127.0.0.1,
//     [::1]), the host it listens on, or a name it was told to allow. A page
//     of another site that rebinds its own name to this machine (DNS
//     rebinding) sends its own name, and gets 403.
//   - Origin, when sent, must be this server's origin (scheme://Host); a
//     cross-origin or "null" Origin gets 403, and so does a request a browser
//     marks Sec-Fetch-Site: cross-site or same-site, except a plain GET
//     navigation (a link to the page from elsewhere).
//
// RequireJSON is the check for a server that takes JSON bodies: a request
// with a body must declare Content-Type: application/json, or it gets 415,
// so that a form or text/plain POST, which a page of another site may send
// without asking, never reaches a handler.
//
// It also builds the http.Server with the timeouts and header limits that keep
// slow or oversized requests from holding the server.
package httpguard

import (
	"encoding/json"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// LoopbackHosts are the names every guard accepts in Host.
var LoopbackHosts = []string{"localhost", "127.0.0.1", "::1"}

// Guard checks requests against the host names a server answers to.
type Guard struct {
	hosts map[string]bool // lower-case host names and IP literals, without port
}

// New returns a guard that accepts the loopback names, the host of listen
// (host:port, the address the server listens on; for an unspecified address
// such as 0.0.0.0 or [::], every address of this machine's interfaces), and
// the names in allow (host names or IP literals, without a port; a port is
// ignored). An allow entry that is empty or holds a scheme or path is an
// error.
func New(listen string, allow []string) (*Guard, error) {
	g := &Guard{hosts: map[string]bool{}}
	for _, h := range LoopbackHosts {
		g.hosts[h] = true
	}
	if listen != "" {
		host, _, err := net.SplitHostPort(listen)
		if err != nil {
			return nil, fmt.Errorf("httpguard: listen address %q: %w", listen, err)
		}
		ip := net.ParseIP(host)
		switch {
		case host == "" || (ip != nil && ip.IsUnspecified()):
			addrs, _ := net.InterfaceAddrs()
			for _, a := range addrs {
				if n, ok := a.(*net.IPNet); ok {
					g.hosts[n.IP.String()] = true
				}
			}
		default:
			g.hosts[normalHost(host)] = true
		}
	}
	for _, a := range allow {
		h := strings.TrimSpace(a)
		if strings.ContainsAny(h, "/?#@") {
			return nil, fmt.Errorf("httpguard: allowed host %q: want a host name or an IP address, without scheme, port or path", a)
		}
		if hh, _, err := net.SplitHostPort(h); err == nil {
			h = hh
		}
		h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
		if h == "" || strings.ContainsAny(h, "/?#@ ") || strings.Contains(h, "://") {
			return nil, fmt.Errorf("httpguard: allowed host %q: want a host name or an IP address, without scheme, port or path", a)
		}
		g.hosts[normalHost(h)] = true
	}
	return g, nil
}

// Hosts lists the host names the guard accepts, sorted.
func (g *Guard) Hosts() []string {
	out := make([]string, 0, len(g.hosts))
	for h := range g.hosts {
		out = append(out, h)
	}
	slices.Sort(out)
	return out
}

// normalHost lower-cases a host and writes an IP literal canonically.
func normalHost(h string) string {
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	if ip := net.ParseIP(h); ip != nil {
		return ip.String()
	}
	return h
}

// hostOnly returns the host of a Host header value (host, host:port,
// [v6]:port or [v6]).
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]")
}

// Error is a refused request: its HTTP status and why.
type Error struct {
	Status int
	Msg    string
}

func (e *Error) Error() string { return e.Msg }

// Check returns nil when r may be served, or an *Error saying why not.
func (g *Guard) Check(r *http.Request) error {
	host := hostOnly(r.Host)
	if host == "" || !g.hosts[normalHost(host)] {
		return &Error{http.StatusForbidden, fmt.Sprintf("host %q is not one this server answers to (%s); start it with -allow-host NAME to add one", r.Host, strings.Join(g.Hosts(), ", "))}
	}
	if origin, ok := r.Header["Origin"]; ok {
		o := ""
		if len(origin) > 0 {
			o = origin[0]
		}
		u, err := url.Parse(o)
		if o == "null" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || !strings.EqualFold(u.Host, r.Host) {
			return &Error{http.StatusForbidden, fmt.Sprintf("origin %q is not this server's (%s): cross-origin requests are refused", o, r.Host)}
		}
	}
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "", "same-origin", "none":
	default:
		navigation := (r.Method == http.MethodGet || r.Method == http.MethodHead) && r.Header.Get("Sec-Fetch-Mode") == "navigate"
		if !navigation {
			return &Error{http.StatusForbidden, fmt.Sprintf("a %s request (Sec-Fetch-Site: %s) is refused: only this server's own page may use it", site, site)}
		}
	}
	return nil
}

// HasBody reports whether r's method carries a body to act on (POST, PUT,
// PATCH, DELETE).
func HasBody(r *http.Request) bool {
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

// RequireJSON returns an *Error (415) unless r declares a JSON body
// (Content-Type: application/json, with any parameters such as charset).
func RequireJSON(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		return &Error{http.StatusUnsupportedMediaType, fmt.Sprintf("%s %s: Content-Type %q, want application/json", r.Method, r.URL.Path, ct)}
	}
	return nil
}

// Wrap serves only the requests Check accepts, answering the others with
// their status and a JSON {"error": message}.
func (g *Guard) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := g.Check(r); err != nil {
			e := err.(*Error)
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Cache-Control", "no-store")
			w.Header().Set("X-Content-Type-Options", "nosniff")
			w.WriteHeader(e.Status)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": e.Msg})
			return
		}
		h.ServeHTTP(w, r)
	})
}

// Timeouts of an HTTP server built by Server.
type Timeouts struct {
	// ReadHeader caps reading a request's headers, Read its whole request
	// (headers and body), Write the time from the end of the headers to the
	// end of the reply, Idle a kept-alive connection's wait for its next
	// request.
	ReadHeader, Read, Write, Idle time.Duration
}

// DefaultTimeouts returns 10 s for headers, 30 s for a request, write as
// given (a reply may wait for a search) and 2 min idle.
func DefaultTimeouts(write time.Duration) Timeouts {
	return Timeouts{ReadHeader: 10 * time.Second, Read: 30 * time.Second, Write: write, Idle: 2 * time.Minute}
}

// MaxHeaderBytes bounds a request's headers.
const MaxHeaderBytes = 16 << 10

// Server returns an http.Server for h with timeouts t and headers bounded by
// MaxHeaderBytes.
func Server(h http.Handler, t Timeouts) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: t.ReadHeader,
		ReadTimeout:       t.Read,
		WriteTimeout:      t.Write,
		IdleTimeout:       t.Idle,
		MaxHeaderBytes:    MaxHeaderBytes,
	}
}
