// Command barepage is the yardstick for the cached hit: a bare net/http
// server that answers every request with one page's bytes, fetched once
// from the app, and nothing else. .ci/bench-hit compares the app's cached
// hit with it, so the ratio says what the app's own layers cost.
//
//	go run ./.ci/barepage -from http://127.0.0.1:8080/items/10 -addr 127.0.0.1:9090
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strconv"
)

func main() {
	from := flag.String("from", "", "URL of the page to serve (fetched once, gzip)")
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	flag.Parse()
	if *from == "" {
		fmt.Fprintln(os.Stderr, "barepage: -from is required")
		os.Exit(2)
	}
	req, err := http.NewRequest(http.MethodGet, *from, nil)
	if err != nil {
		log.Fatal(err)
	}
	// Set by hand, so that the transport hands over the gzip bytes as
	// they are instead of unzipping them.
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		log.Fatalf("barepage: %s answered %d: %v", *from, resp.StatusCode, err)
	}
	kept := http.Header{}
	for _, h := range []string{"Content-Type", "Content-Encoding", "Vary", "Cache-Control", "Etag"} {
		if v := resp.Header.Get(h); v != "" {
			kept.Set(h, v)
		}
	}
	kept.Set("Content-Length", strconv.Itoa(len(body)))
	page := func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		for k, v := range kept {
			h[k] = v
		}
		w.Write(body)
	}
	log.Printf("barepage: serving %d bytes of %s on %s", len(body), *from, *addr)
	log.Fatal(http.ListenAndServe(*addr, http.HandlerFunc(page)))
}
