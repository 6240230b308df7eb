package bus

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// ServerConfig configures the embedded NATS server.
type ServerConfig struct {
	// Dir holds JetStream's file storage (streams, object store, KV
	// buckets). It is created if missing. A server restarted on the same
	// Dir finds every acknowledged message and each durable consumer's
	// position again. Required.
	Dir string
	// Listen is the host:port the server binds. Empty means
	// "127.0.0.1:0": loopback, on a free port (see URL). Port 0 picks a
	// free port.
	Listen string
	// Token, when set, is required from every client (Options.Token). A
	// server that listens beyond loopback must have one.
	Token string
	// MaxPayload bounds one message in bytes; 0 means DefaultMaxPayload.
	MaxPayload int32
}

// DefaultMaxPayload is the embedded server's largest message (a compressed
// game): 8 MiB, above NATS' own default of 1 MiB so long games of large
// boards fit.
const DefaultMaxPayload = 8 << 20

// Server is an embedded nats-server with JetStream enabled.
type Server struct {
	ns  *server.Server
	url string
}

// StartServer starts an embedded NATS server with JetStream and file
// storage under cfg.Dir, and returns once it accepts connections.
func StartServer(cfg ServerConfig) (*Server, error) {
	if cfg.Dir == "" {
		return nil, errors.New("bus: server: ServerConfig.Dir is required (the JetStream storage folder)")
	}
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	host, portText, err := net.SplitHostPort(cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("bus: server: listen address %q: %w (want host:port, e.g. 127.0.0.1:4222)", cfg.Listen, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535 {
		return nil, fmt.Errorf("bus: server: listen address %q: port %q is not a number in 0..65535", cfg.Listen, portText)
	}
	if host == "" {
		return nil, fmt.Errorf("bus: server: listen address %q has no host (use 127.0.0.1 for this machine only, 0.0.0.0 for every interface)", cfg.Listen)
	}
	if !isLoopback(host) && cfg.Token == "" {
		return nil, fmt.Errorf("bus: server: listening on %q beyond loopback needs a token (ServerConfig.Token, -token)", cfg.Listen)
	}
	if cfg.MaxPayload < 0 {
		return nil, fmt.Errorf("bus: server: MaxPayload %d is negative", cfg.MaxPayload)
	}
	if cfg.MaxPayload == 0 {
		cfg.MaxPayload = DefaultMaxPayload
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("bus: server: %w", err)
	}
	if port == 0 {
		port = server.RANDOM_PORT
	}
	opts := &server.Options{
		ServerName:    "tabula",
		Host:          host,
		Port:          port,
		JetStream:     true,
		StoreDir:      cfg.Dir,
		Authorization: cfg.Token,
		MaxPayload:    cfg.MaxPayload,
		NoSigs:        true,
		NoLog:         true,
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("bus: server: %w", err)
	}
	ns.Start()
	if !ns.ReadyForConnections(30 * time.Second) {
		ns.Shutdown()
		ns.WaitForShutdown()
		return nil, fmt.Errorf("bus: server on %s with storage %s did not become ready in 30 s (port in use? storage folder locked or damaged?)", cfg.Listen, cfg.Dir)
	}
	if !ns.JetStreamEnabled() {
		ns.Shutdown()
		ns.WaitForShutdown()
		return nil, fmt.Errorf("bus: server: JetStream did not start with storage %s", cfg.Dir)
	}
	addr, ok := ns.Addr().(*net.TCPAddr)
	if !ok {
		ns.Shutdown()
		ns.WaitForShutdown()
		return nil, fmt.Errorf("bus: server: no TCP listener on %s", cfg.Listen)
	}
	urlHost := host
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		urlHost = "127.0.0.1" // reachable from this machine; remote clients use the machine's own address
	}
	return &Server{ns: ns, url: "nats://" + net.JoinHostPort(urlHost, strconv.Itoa(addr.Port))}, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// URL returns the nats://host:port address clients on this machine use.
func (s *Server) URL() string { return s.url }

// Shutdown stops the server and waits until it has stopped, its storage
// flushed and closed.
func (s *Server) Shutdown() {
	s.ns.Shutdown()
	s.ns.WaitForShutdown()
}
