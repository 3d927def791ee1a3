// Httploop serves HTTP on 127.0.0.1 and fetches from itself: loopback TCP
// sockets, the netpoller and goroutines together.
package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
)

func main() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println("FAIL listen:", err)
		os.Exit(1)
	}
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello %s from gometal", strings.TrimPrefix(r.URL.Path, "/"))
	}))
	url := "http://" + ln.Addr().String() + "/"
	for i := 0; i < 20; i++ {
		resp, err := http.Get(fmt.Sprintf("%sreq%d", url, i))
		if err != nil {
			fmt.Println("FAIL get:", err)
			os.Exit(1)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := fmt.Sprintf("hello req%d from gometal", i); string(body) != want {
			fmt.Printf("FAIL: got %q want %q\n", body, want)
			os.Exit(1)
		}
	}
	if _, err := net.Dial("tcp", "127.0.0.1:1"); err == nil {
		fmt.Println("FAIL: connect to a closed port succeeded")
		os.Exit(1)
	}
	fmt.Println("httploop ok: 20 requests served on", ln.Addr())
}
