// Httpserver is an ordinary net/http server: run it on gometal and reach
// it from the host.
//
//	gometal run -p 8080:8080 ./examples/httpserver
//	curl http://127.0.0.1:8080/
//
// Every request goes through gometal's TCP/IP stack: the virtio-net
// interrupt, the kernel's TCP, a socket made readable, epoll, and the Go
// runtime's netpoller readying the handler's goroutine.
//
// Paths: / (a page about the machine), /bytes?n=N (N bytes of a fixed
// pattern: the client can check them), /sha256 (POST: the SHA-256 of
// the body), /fetch?url=URL (the guest fetches URL itself: with
// gometal run -host-port P, http://10.0.2.100:P/ is the host's
// 127.0.0.1:P), /conns (the connections open now and at most so far),
// /quit (the server exits with status 0).
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"time"
)

var (
	served atomic.Int64
	// open and peak count client connections, from accept to close.
	open, peak atomic.Int64
)

// track is the server's ConnState hook.
func track(_ net.Conn, st http.ConnState) {
	switch st {
	case http.StateNew:
		n := open.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
	case http.StateClosed, http.StateHijacked:
		open.Add(-1)
	}
}

// Pattern is byte i of /bytes: a sequence that a dropped, duplicated or
// reordered segment would break.
func Pattern(i int64) byte { return byte(i*7 + i>>8 + i>>16) }

func main() {
	addr := flag.String("addr", ":8080", "address to listen on")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("httpserver: %v", err)
	}
	start := time.Now()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		n := served.Add(1)
		fmt.Fprintf(w, "hello from gometal\n\n%s on %d cores (GOMAXPROCS %d), %d goroutines\nup %v, request %d, from %s\n",
			runtime.Version(), runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.NumGoroutine(),
			time.Since(start).Round(time.Millisecond), n, r.RemoteAddr)
	})
	mux.HandleFunc("/bytes", func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.ParseInt(r.URL.Query().Get("n"), 10, 64)
		if err != nil || n < 0 {
			http.Error(w, "want /bytes?n=COUNT", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Length", strconv.FormatInt(n, 10))
		buf := make([]byte, 64<<10)
		for off := int64(0); off < n; {
			k := min(int64(len(buf)), n-off)
			for i := range k {
				buf[i] = Pattern(off + i)
			}
			if _, err := w.Write(buf[:k]); err != nil {
				return
			}
			off += k
		}
	})
	mux.HandleFunc("/sha256", func(w http.ResponseWriter, r *http.Request) {
		h := sha256.New()
		n, err := io.Copy(h, r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, "%s %d\n", hex.EncodeToString(h.Sum(nil)), n)
	})
	mux.HandleFunc("/fetch", func(w http.ResponseWriter, r *http.Request) {
		resp, err := http.Get(r.URL.Query().Get("url"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	})
	mux.HandleFunc("/conns", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "open %d peak %d\n", open.Load(), peak.Load())
	})
	mux.HandleFunc("/quit", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "bye")
		fmt.Printf("httpserver: quit after %d requests\n", served.Load())
		go func() {
			time.Sleep(100 * time.Millisecond) // let the answer leave
			os.Exit(0)
		}()
	})
	fmt.Printf("httpserver: listening on %s\n", ln.Addr())
	srv := &http.Server{Handler: mux, ConnState: track}
	log.Fatal(srv.Serve(ln))
}
