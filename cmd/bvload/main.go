// Command bvload measures offer entry on this machine in one run, over real
// loopback HTTP with a built-in keep-alive load generator: (a) a trivial
// net/http JSON handler, (b) durable offer entry with one commit per
// request, (c) the venue's offer entry through the sequencer with group
// commit, and (c2) the same with half the offers trading. It reports
// throughput, latency percentiles, errors and the ratios the performance
// goals are stated in. With --open-rate it instead sends offers to (c)'s
// venue at a fixed rate whatever the answers (open loop) and reports
// latency from each request's scheduled time, refusals, time-outs and the
// server's garbage-collection pauses in the window.
package main

import "github.com/bondvenue/bondvenue/internal/envflag"

func main() { envflag.Main("bvload", run) }
